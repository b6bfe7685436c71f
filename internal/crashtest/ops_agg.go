package crashtest

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// outOp is aggregate [{$match: {}}, {$out: To}] on From (same database).
// Src is From's documents when the op was drawn (the model's, so the
// acknowledged state). The generator picks a To without secondary indexes:
// MongoDB keeps a $out target's indexes, relaydb drops them (TODO(#2)),
// and that difference is not what this harness checks.
type outOp struct {
	From, To string
	Src      []Doc
}

func (o *outOp) Kind() string { return "aggregate$out" }
func (o *outOp) String() string {
	return fmt.Sprintf("aggregate %s $out %s (%d docs)", o.From, o.To, len(o.Src))
}

func (o *outOp) Run(ctx context.Context, cl *mongo.Client, wc WriteConcern) error {
	db, from := splitNS(o.From)
	_, to := splitNS(o.To)
	return runAggregate(ctx, cl, db, from, bson.D{{Key: "$out", Value: to}}, wc)
}

func (o *outOp) Apply(m *Model) {
	c := newColl()
	for _, d := range o.Src {
		c.Docs[d.ID] = d
	}
	m.Colls[o.To] = c
}

// Partial: relaydb's $out drops the target, then inserts the results one
// by one, so the target may be absent or hold any of the results.
func (o *outOp) Partial(before *Model, got State) []*Model {
	m := before.Clone()
	gc := got[o.To]
	if gc == nil {
		delete(m.Colls, o.To)
		return []*Model{m}
	}
	c := newColl()
	for _, d := range o.Src {
		if gc.Docs[fmt.Sprint(d.ID)] == d.JSON() {
			c.Docs[d.ID] = d
		}
	}
	m.Colls[o.To] = c
	return []*Model{m}
}

// mergeOp is aggregate [{$match: {}}, {$merge: {into: To, whenMatched:
// replace, whenNotMatched: insert}}] on From (on defaults to _id).
type mergeOp struct {
	From, To string
	Src      []Doc
}

func (o *mergeOp) Kind() string { return "aggregate$merge" }
func (o *mergeOp) String() string {
	return fmt.Sprintf("aggregate %s $merge into %s (%d docs)", o.From, o.To, len(o.Src))
}

func (o *mergeOp) Run(ctx context.Context, cl *mongo.Client, wc WriteConcern) error {
	db, from := splitNS(o.From)
	_, to := splitNS(o.To)
	// "on" is left to its default (_id).
	spec := bson.D{{Key: "into", Value: to},
		{Key: "whenMatched", Value: "replace"}, {Key: "whenNotMatched", Value: "insert"}}
	return runAggregate(ctx, cl, db, from, bson.D{{Key: "$merge", Value: spec}}, wc)
}

func (o *mergeOp) Apply(m *Model) {
	c := m.coll(o.To)
	for _, d := range o.Src {
		c.Docs[d.ID] = d
	}
}

// Partial: each document's write is atomic, the stage is not, so any of
// the results may have been merged (and the target created).
func (o *mergeOp) Partial(before *Model, got State) []*Model {
	m := before.Clone()
	gc := got[o.To]
	if gc == nil {
		return []*Model{m}
	}
	c := m.coll(o.To)
	for _, d := range o.Src {
		if gc.Docs[fmt.Sprint(d.ID)] == d.JSON() {
			c.Docs[d.ID] = d
		}
	}
	return []*Model{m}
}

func runAggregate(ctx context.Context, cl *mongo.Client, db, coll string, stage bson.D, wc WriteConcern) error {
	pipeline := bson.A{bson.D{{Key: "$match", Value: bson.D{}}}, stage}
	return runCommand(ctx, cl, db, withWC(bson.D{{Key: "aggregate", Value: coll},
		{Key: "pipeline", Value: pipeline}, {Key: "cursor", Value: bson.D{}}}, wc))
}

package crashtest

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// insertOp inserts Docs (ordered) into NS with the driver's InsertMany.
type insertOp struct {
	NS   string
	Docs []Doc
}

func (o *insertOp) Kind() string   { return "insert" }
func (o *insertOp) String() string { return fmt.Sprintf("insert %d docs into %s", len(o.Docs), o.NS) }

func (o *insertOp) Run(ctx context.Context, cl *mongo.Client, wc WriteConcern) error {
	docs := make([]any, len(o.Docs))
	for i, d := range o.Docs {
		docs[i] = d.D()
	}
	_, err := collection(cl, o.NS, wc).InsertMany(ctx, docs)
	return err
}

func (o *insertOp) Apply(m *Model) {
	c := m.coll(o.NS)
	for _, d := range o.Docs {
		c.Docs[d.ID] = d
	}
}

// Partial: an ordered insert writes one document at a time, so any subset
// of the documents (the observed one) may be there.
func (o *insertOp) Partial(before *Model, got State) []*Model {
	m := before.Clone()
	gc := got[o.NS]
	if gc == nil {
		return nil
	}
	c := m.coll(o.NS)
	for _, d := range o.Docs {
		if gc.Docs[fmt.Sprint(d.ID)] == d.JSON() {
			c.Docs[d.ID] = d
		}
	}
	return []*Model{m}
}

// updateOp sets v on the document _id in NS (updateOne).
type updateOp struct {
	NS string
	ID int64
	V  int64
}

func (o *updateOp) Kind() string   { return "update" }
func (o *updateOp) String() string { return fmt.Sprintf("update %s _id %d v=%d", o.NS, o.ID, o.V) }

func (o *updateOp) Run(ctx context.Context, cl *mongo.Client, wc WriteConcern) error {
	res, err := collection(cl, o.NS, wc).UpdateOne(ctx, bson.D{{Key: "_id", Value: o.ID}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: o.V}}}})
	if err == nil && res.MatchedCount != 1 {
		err = fmt.Errorf("%w: matched %d, want 1", ErrUnexpected, res.MatchedCount)
	}
	return err
}

func (o *updateOp) Apply(m *Model) {
	c := m.coll(o.NS)
	d := c.Docs[o.ID]
	d.V = o.V
	c.Docs[o.ID] = d
}

func (o *updateOp) Partial(*Model, State) []*Model { return nil }

// deleteOp deletes the document _id from NS (deleteOne).
type deleteOp struct {
	NS string
	ID int64
}

func (o *deleteOp) Kind() string   { return "delete" }
func (o *deleteOp) String() string { return fmt.Sprintf("delete %s _id %d", o.NS, o.ID) }

func (o *deleteOp) Run(ctx context.Context, cl *mongo.Client, wc WriteConcern) error {
	res, err := collection(cl, o.NS, wc).DeleteOne(ctx, bson.D{{Key: "_id", Value: o.ID}})
	if err == nil && res.DeletedCount != 1 {
		err = fmt.Errorf("%w: deleted %d, want 1", ErrUnexpected, res.DeletedCount)
	}
	return err
}

func (o *deleteOp) Apply(m *Model)                 { delete(m.coll(o.NS).Docs, o.ID) }
func (o *deleteOp) Partial(*Model, State) []*Model { return nil }

// famOp is findAndModify on _id: set b, or remove the document.
type famOp struct {
	NS     string
	ID     int64
	B      string
	Remove bool
}

func (o *famOp) Kind() string { return "findAndModify" }
func (o *famOp) String() string {
	if o.Remove {
		return fmt.Sprintf("findAndModify remove %s _id %d", o.NS, o.ID)
	}
	return fmt.Sprintf("findAndModify %s _id %d b=%q", o.NS, o.ID, o.B)
}

func (o *famOp) Run(ctx context.Context, cl *mongo.Client, wc WriteConcern) error {
	coll := collection(cl, o.NS, wc)
	filter := bson.D{{Key: "_id", Value: o.ID}}
	var res *mongo.SingleResult
	if o.Remove {
		res = coll.FindOneAndDelete(ctx, filter)
	} else {
		res = coll.FindOneAndUpdate(ctx, filter, bson.D{{Key: "$set", Value: bson.D{{Key: "b", Value: o.B}}}},
			options.FindOneAndUpdate().SetReturnDocument(options.After))
	}
	return res.Err() // ErrNoDocuments too: the model says the document is there
}

func (o *famOp) Apply(m *Model) {
	c := m.coll(o.NS)
	if o.Remove {
		delete(c.Docs, o.ID)
		return
	}
	d := c.Docs[o.ID]
	d.B = o.B
	c.Docs[o.ID] = d
}

func (o *famOp) Partial(*Model, State) []*Model { return nil }

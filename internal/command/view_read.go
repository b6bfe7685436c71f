package command

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Reads on views: each becomes an aggregation of the view's source with
// the view's pipeline first, as MongoDB rewrites them.

// viewAggregate runs def's pipeline then stages; it returns an iterator
// and the read view to release.
func (c *Ctx) viewAggregate(def *viewDef, stages bson.A, p exec.AggregateParams) (exec.Iterator, *readView, error) {
	var err error
	if p.Collation, err = viewReadCollation(def, p.Collation); err != nil {
		return nil, nil, err
	}
	rv, err := c.beginRead()
	if err != nil {
		return nil, nil, err
	}
	p.Pipeline = append(append(bson.A{}, def.pipeline...), stages...)
	p.Snapshot, p.Owned = rv.snap, c.Owned
	p.LocalSessions = c.D.sessions.list
	it, err := c.D.eng.Aggregate(c.DB, def.source, p)
	if err != nil {
		rv.release()
		return nil, nil, err
	}
	return it, rv, nil
}

// viewCursor answers a cursor-returning read on a view.
func (c *Ctx) viewCursor(def *viewDef, stages bson.A, p exec.AggregateParams, n int, single bool) (bson.D, error) {
	it, rv, err := c.viewAggregate(def, stages, p)
	if err != nil {
		return nil, err
	}
	defer rv.release()
	reply, err := c.firstBatch(exec.NewCursor(c.ns(def.name), it), n, single)
	if err != nil {
		return nil, err
	}
	return c.finishRead(rv, reply)
}

// viewOne runs stages that yield at most one document.
func (c *Ctx) viewOne(def *viewDef, stages bson.A, co exec.Collation) (bson.D, *readView, error) {
	it, rv, err := c.viewAggregate(def, stages, exec.AggregateParams{Collation: co})
	if err != nil {
		return nil, nil, err
	}
	cur := exec.NewCursor(c.ns(def.name), it)
	defer cur.Close()
	batch, _, err := cur.NextBatch(context.Background(), 1)
	if err != nil {
		rv.release()
		return nil, nil, err
	}
	if len(batch) == 0 {
		return nil, rv, nil
	}
	d, _ := batch[0].(bson.D)
	if d == nil {
		raw, _ := batch[0].(bson.Raw)
		_ = bson.Unmarshal(raw, &d)
	}
	return d, rv, nil
}

func findOnView(c *Ctx, f *request.Find, def *viewDef, p exec.FindParams, n int) (bson.D, error) {
	if lenient(f.Tailable) {
		return nil, mongoerr.New(mongoerr.CommandNotSupportedOnView, "tailable cursors are not supported on views")
	}
	var stages bson.A
	if len(p.Filter) > 0 {
		stages = append(stages, bson.D{{Key: "$match", Value: p.Filter}})
	}
	if len(p.Sort) > 0 {
		stages = append(stages, bson.D{{Key: "$sort", Value: p.Sort}})
	}
	if p.Skip > 0 {
		stages = append(stages, bson.D{{Key: "$skip", Value: p.Skip}})
	}
	if p.Limit > 0 {
		stages = append(stages, bson.D{{Key: "$limit", Value: p.Limit}})
	}
	if len(p.Projection) > 0 {
		stages = append(stages, bson.D{{Key: "$project", Value: p.Projection}})
	}
	return c.viewCursor(def, stages, exec.AggregateParams{Vars: p.Vars, AllowDiskUse: p.AllowDiskUse, Collation: p.Collation}, n, f.SingleBatch)
}

func countOnView(c *Ctx, def *viewDef, q bson.D, skip, limit int64, co exec.Collation) (bson.D, error) {
	stages := bson.A{bson.D{{Key: "$match", Value: nonNilDoc(q)}}}
	if skip > 0 {
		stages = append(stages, bson.D{{Key: "$skip", Value: skip}})
	}
	if limit > 0 {
		stages = append(stages, bson.D{{Key: "$limit", Value: limit}})
	}
	stages = append(stages, bson.D{{Key: "$count", Value: "n"}})
	d, rv, err := c.viewOne(def, stages, co)
	if err != nil {
		return nil, err
	}
	defer rv.release()
	n, _ := bsonx.AsInt64(lookupOpt(d, "n"))
	return c.finishRead(rv, bson.D{{Key: "n", Value: int32(n)}})
}

func distinctOnView(c *Ctx, def *viewDef, key string, q bson.D, co exec.Collation) (bson.D, error) {
	path := "$" + key
	stages := bson.A{
		bson.D{{Key: "$match", Value: nonNilDoc(q)}},
		bson.D{{Key: "$unwind", Value: bson.D{{Key: "path", Value: path}, {Key: "preserveNullAndEmptyArrays", Value: true}}}},
		bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "values", Value: bson.D{{Key: "$addToSet", Value: path}}}}}},
	}
	d, rv, err := c.viewOne(def, stages, co)
	if err != nil {
		return nil, err
	}
	defer rv.release()
	vals, _ := lookupOpt(d, "values").(bson.A)
	if vals == nil {
		vals = bson.A{}
	}
	return c.finishRead(rv, bson.D{{Key: "values", Value: vals}})
}

func nonNilDoc(d bson.D) bson.D {
	if d == nil {
		return bson.D{}
	}
	return d
}

func aggregateOnView(c *Ctx, a *request.Aggregate, def *viewDef, p exec.AggregateParams, explain bool, err error) (bson.D, error) {
	if err != nil {
		return nil, err
	}
	if explain {
		return bson.D{{Key: "stages", Value: append(append(bson.A{}, def.pipeline...), a.Pipeline...)}}, nil
	}
	n, err := cursorBatchSize(a.Cursor)
	if err != nil {
		return nil, err
	}
	return c.viewCursor(def, a.Pipeline, p, n, false)
}

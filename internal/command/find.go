package command

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// findParams checks find's query fields and returns them as exec takes them.
func findParams(p *request.Find) (exec.FindParams, error) {
	q := exec.FindParams{Filter: p.Filter, Projection: p.Projection, Sort: p.Sort, Hint: p.Hint.Value,
		Skip: p.Skip, Limit: p.Limit, AllowDiskUse: p.AllowDiskUse}
	if p.Skip < 0 {
		return q, mongoerr.New(mongoerr.IDLNegativeValue, "BSON field 'skip' value must be >= 0, actual value '%d'", p.Skip)
	}
	if p.Limit < 0 {
		return q, mongoerr.New(mongoerr.IDLNegativeValue, "BSON field 'limit' value must be >= 0, actual value '%d'", p.Limit)
	}
	var err error
	if q.Vars, err = letVars(p.Let); err != nil {
		return q, err
	}
	if q.Min, q.Max, err = minMaxBounds(p.Min, p.Max); err != nil {
		return q, err
	}
	q.ReturnKey = lenient(p.ReturnKey)
	q.Collation, err = opCollation(p.Collation)
	return q, err
}

// minMaxBounds reads find's min and max (an empty document: unbounded).
func minMaxBounds(minV, maxV any) (bson.D, bson.D, error) {
	var out [2]bson.D
	for i, v := range []any{minV, maxV} {
		if v == nil {
			continue
		}
		d, ok := v.(bson.D)
		if !ok {
			return nil, nil, cmdspec.TypeError("find."+[]string{"min", "max"}[i], v, "object")
		}
		if len(d) > 0 {
			out[i] = d
		}
	}
	return out[0], out[1], nil
}

// firstBatchSize checks a batchSize; def when absent, -1 for an empty
// first batch.
func firstBatchSize(n *int64, def int) (int, error) {
	switch {
	case n == nil:
		return def, nil
	case *n < 0:
		return 0, mongoerr.New(mongoerr.IDLNegativeValue, "BSON field 'batchSize' value must be >= 0, actual value '%d'", *n)
	case *n == 0:
		return -1, nil
	}
	return int(*n), nil
}

// lenient reads a bool the way find reads tailable and awaitData: a value
// of the wrong type is false.
func lenient(v any) bool {
	b, _ := cmdspec.Bool("", v)
	return b
}

func find(c *Ctx, f *request.Find) (bson.D, error) {
	coll := string(f.Collection)
	p, err := findParams(f)
	if err != nil {
		return nil, err
	}
	if len(f.Projection) > 0 || f.Let != nil || !exec.PointFilter(p.Filter) {
		p.Vars = c.scriptVars(p.Vars) // script.go; a point lookup runs no JavaScript
	}
	n, err := firstBatchSize(f.BatchSize, exec.DefaultFirstBatch)
	if err != nil {
		return nil, err
	}
	if def, err := c.view(coll); err != nil || def != nil {
		if err != nil {
			return nil, err
		}
		return findOnView(c, f, def, p, n)
	}
	tailable, await := lenient(f.Tailable), lenient(f.AwaitData)
	if await && !tailable {
		return nil, mongoerr.New(mongoerr.FailedToParse, "Cannot set 'awaitData' without also setting 'tailable'")
	}
	if tailable && !(c.DB == "local" && coll == "oplog.rs") {
		return findCappedTail(c, f, coll, p, n, await)
	}
	rv, err := c.beginRead()
	if err != nil {
		return nil, err
	}
	defer rv.release()
	p.Snapshot, p.Owned = rv.snap, c.Owned
	it, _, err := c.D.eng.Find(c.DB, coll, p)
	if err != nil {
		return nil, err
	}
	cur := exec.NewCursor(c.ns(coll), it)
	cur.Limit = p.Limit
	cur.Tailable, cur.AwaitData = tailable, await
	reply, err := c.firstBatch(cur, n, f.SingleBatch)
	if err != nil {
		return nil, err
	}
	if tailable {
		// Only getMore waits for data; the first batch answers at once.
		cur.Wait = c.D.eng.OplogWaiter(it)
	}
	return c.finishRead(rv, reply)
}

// firstBatch returns the cursor reply for a new cursor, registering the
// cursor when more results remain.
func (c *Ctx) firstBatch(cur *exec.Cursor, n int, single bool) (bson.D, error) {
	var batch bson.A
	var done bool
	var err error
	if n < 0 {
		batch, done = bson.A{}, false
	} else {
		cur.Interrupt = c.interrupted // killop.go
		batch, done, err = cur.NextBatch(context.Background(), n)
		if err != nil {
			return nil, err
		}
	}
	id := int64(0)
	if !done && !single {
		cur.TimeLimited = c.timeLimited()
		c.ownCursor(cur) // cursor_owner.go
		id = c.D.eng.Cursors().Register(cur)
	} else if !done {
		cur.Close()
	}
	return cursorReply(cur.NS, id, "firstBatch", batch), nil
}

func cursorReply(ns string, id int64, key string, batch bson.A) bson.D {
	return bson.D{{Key: "cursor", Value: bson.D{
		{Key: key, Value: batch},
		{Key: "id", Value: id},
		{Key: "ns", Value: ns},
	}}}
}

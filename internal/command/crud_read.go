package command

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func init() {
	register(&Command{Name: "find", Read: true, Help: "queries a collection", Handler: findCmd, Fields: []string{
		"filter", "projection", "sort", "skip", "limit", "batchSize", "singleBatch", "hint",
		"allowDiskUse", "let", "collation", "min", "max", "returnKey", "showRecordId",
		"tailable", "awaitData", "noCursorTimeout", "oplogReplay", "allowPartialResults", "readOnce", "term"}})
	register(&Command{Name: "getMore", Help: "returns the next batch of a cursor", Handler: getMoreCmd,
		Fields: []string{"collection", "batchSize", "term", "lastKnownCommittedOpTime"}})
	register(&Command{Name: "killCursors", Help: "closes cursors", Handler: killCursorsCmd, Fields: []string{"cursors"}})
}

// findOptions parses find's query fields.
func (c *Ctx) findParams() (exec.FindParams, error) {
	var p exec.FindParams
	var err error
	if p.Filter, _, err = c.doc("filter"); err != nil {
		return p, err
	}
	if p.Projection, _, err = c.doc("projection"); err != nil {
		return p, err
	}
	if p.Sort, _, err = c.doc("sort"); err != nil {
		return p, err
	}
	if v, ok := c.field("hint"); ok {
		if p.Hint, err = parseHint(v); err != nil {
			return p, err
		}
	}
	if p.Skip, _, err = c.int64Field("skip"); err != nil {
		return p, err
	}
	if p.Skip < 0 {
		return p, mongoerr.New(51024, "BSON field 'skip' value must be >= 0, actual value '%d'", p.Skip)
	}
	if p.Limit, _, err = c.int64Field("limit"); err != nil {
		return p, err
	}
	if p.Limit < 0 {
		return p, mongoerr.New(51024, "BSON field 'limit' value must be >= 0, actual value '%d'", p.Limit)
	}
	if p.AllowDiskUse, err = c.boolean("allowDiskUse"); err != nil {
		return p, err
	}
	if p.Vars, err = c.letVars(); err != nil {
		return p, err
	}
	if v, ok := c.field("collation"); ok {
		if err := checkCollation(v); err != nil {
			return p, err
		}
	}
	return p, nil
}

// batchSize parses a non-negative batchSize; def when absent.
func (c *Ctx) batchSize(def int) (int, error) {
	n, ok, err := c.int64Field("batchSize")
	if err != nil || !ok {
		return def, err
	}
	if n < 0 {
		return 0, mongoerr.New(51024, "BSON field 'batchSize' value must be >= 0, actual value '%d'", n)
	}
	if n == 0 {
		return -1, nil // an empty first batch
	}
	return int(n), nil
}

func findCmd(c *Ctx) (bson.D, error) {
	coll, err := c.collArg()
	if err != nil {
		return nil, err
	}
	p, err := c.findParams()
	if err != nil {
		return nil, err
	}
	n, err := c.batchSize(exec.DefaultFirstBatch)
	if err != nil {
		return nil, err
	}
	single, err := c.boolean("singleBatch")
	if err != nil {
		return nil, err
	}
	tailable, _ := c.boolean("tailable")
	await, _ := c.boolean("awaitData")
	if await && !tailable {
		return nil, mongoerr.New(mongoerr.FailedToParse, "Cannot set 'awaitData' without also setting 'tailable'")
	}
	if tailable && !(c.DB == "local" && coll == "oplog.rs") {
		return nil, mongoerr.New(mongoerr.BadValue, "error processing query: tailable cursor requested on non capped collection")
	}
	rv, err := c.beginRead()
	if err != nil {
		return nil, err
	}
	defer rv.release()
	p.Snapshot = rv.snap
	it, _, err := c.D.eng.Find(c.DB, coll, p)
	if err != nil {
		return nil, err
	}
	cur := exec.NewCursor(c.ns(coll), it)
	cur.Limit = p.Limit
	cur.Tailable, cur.AwaitData = tailable, await
	reply, err := c.firstBatch(cur, n, single)
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
		batch, done, err = cur.NextBatch(context.Background(), n)
		if err != nil {
			return nil, err
		}
	}
	id := int64(0)
	if !done && !single {
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

func getMoreCmd(c *Ctx) (bson.D, error) {
	id, ok := c.Cmd[0].Value.(int64)
	if !ok {
		return nil, c.typeErr("getMore", c.Cmd[0].Value, "long")
	}
	coll, ok, err := c.str("collection")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, c.missing("collection")
	}
	n, err := c.batchSize(0)
	if err != nil {
		return nil, err
	}
	cur, err := c.D.eng.Cursors().Checkout(id, c.ns(coll))
	if err != nil {
		return nil, err
	}
	defer c.D.eng.Cursors().Release(cur)
	ctx, cancel := c.awaitContext(cur)
	defer cancel()
	batch, done, err := cur.NextBatch(ctx, n)
	if err != nil {
		return nil, err
	}
	if done {
		id = 0
	}
	return cursorReply(cur.NS, id, "nextBatch", batch), nil
}

// awaitContext bounds an awaitData getMore by maxTimeMS (default 1 s).
func (c *Ctx) awaitContext(cur *exec.Cursor) (context.Context, context.CancelFunc) {
	wait := time.Second
	if ms, ok, _ := c.int64Field("maxTimeMS"); ok && ms > 0 {
		wait = time.Duration(ms) * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	go func() {
		select {
		case <-c.D.shuttingDown():
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

func killCursorsCmd(c *Ctx) (bson.D, error) {
	if _, err := c.collArg(); err != nil {
		return nil, err
	}
	ids, ok, err := c.array("cursors")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, c.missing("cursors")
	}
	killed, notFound := bson.A{}, bson.A{}
	for _, v := range ids {
		id, isLong := cursorID(v)
		if !isLong {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'killCursors.cursors' is the wrong type '%s', expected type 'long'", bsonx.TypeAlias(v))
		}
		if c.D.eng.Cursors().Kill(id) {
			killed = append(killed, id)
		} else {
			notFound = append(notFound, id)
		}
	}
	return bson.D{
		{Key: "cursorsKilled", Value: killed},
		{Key: "cursorsNotFound", Value: notFound},
		{Key: "cursorsAlive", Value: bson.A{}},
		{Key: "cursorsUnknown", Value: bson.A{}},
	}, nil
}

// cursorID accepts a cursor id sent as long or int (some clients send small
// ids as int32).
func cursorID(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int32:
		return int64(n), true
	}
	return 0, false
}

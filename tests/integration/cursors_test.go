package integration

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

const cursorDocs = 1500

// TestCursors shares one server and one 1500-document collection.
func TestCursors(t *testing.T) {
	s, c := startServer(t)
	coll := freshColl(t, c, "cur")
	docs := make([]any, cursorDocs)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "pad", Value: "xxxxxxxxxxxxxxxx"}}
	}
	if _, err := coll.InsertMany(tctx(t, 30*time.Second), docs); err != nil {
		t.Fatalf("seed: %v", err)
	}
	t.Run("BatchSizeGetMore", func(t *testing.T) { testBatchSizeGetMore(t, s.URI(), coll.Name()) })
	t.Run("LimitBatchSize", func(t *testing.T) { testLimitBatchSize(t, coll) })
	t.Run("KillCursors", func(t *testing.T) { testKillCursors(t, coll) })
	t.Run("TailOplog", func(t *testing.T) { testTailOplog(t, c) })
	t.Run("TailOplogEmptyFind", func(t *testing.T) { testTailOplogEmptyFind(t, c) })
}

// rawFind runs a find command and returns the first batch and cursor id.
func rawFind(t *testing.T, coll *mongo.Collection, extra bson.D) (bson.A, int64) {
	t.Helper()
	cmd := append(bson.D{{Key: "find", Value: coll.Name()}, {Key: "sort", Value: bson.D{{Key: "_id", Value: 1}}}}, extra...)
	return cursorReply(t, coll.Database().RunCommand(tctx(t, opTimeout), cmd), "firstBatch")
}

func rawGetMore(t *testing.T, coll *mongo.Collection, id int64, batch int32) (bson.A, int64, error) {
	t.Helper()
	cmd := bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: coll.Name()}}
	if batch > 0 {
		cmd = append(cmd, bson.E{Key: "batchSize", Value: batch})
	}
	res := coll.Database().RunCommand(tctx(t, opTimeout), cmd)
	if res.Err() != nil {
		return nil, 0, res.Err()
	}
	b, nid := cursorReply(t, res, "nextBatch")
	return b, nid, nil
}

func cursorReply(t *testing.T, res *mongo.SingleResult, batchKey string) (bson.A, int64) {
	t.Helper()
	var d bson.D
	if err := res.Decode(&d); err != nil {
		t.Fatalf("cursor command: %v", err)
	}
	cur, _ := field(d, "cursor").(bson.D)
	batch, _ := field(cur, batchKey).(bson.A)
	id, ok := field(cur, "id").(int64)
	if !ok {
		t.Fatalf("reply has no int64 cursor.id: %s", asJSON(d))
	}
	return batch, id
}

func testBatchSizeGetMore(t *testing.T, uri, name string) {
	var getMores, badBatch atomic.Int32
	mon := &event.CommandMonitor{Succeeded: func(_ context.Context, e *event.CommandSucceededEvent) {
		if e.CommandName != "getMore" {
			return
		}
		getMores.Add(1)
		if n := batchLen(e.Reply); n > 100 {
			badBatch.Store(int32(n))
		}
	}}
	cl, err := mongo.Connect(options.Client().ApplyURI(uri).SetMonitor(mon))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cl.Disconnect(tctx(t, opTimeout))
	ctx := tctx(t, 30*time.Second)
	cur, err := cl.Database("cur").Collection(name).Find(ctx, bson.D{},
		options.Find().SetBatchSize(100).SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatalf("find: %v", err)
	}
	if n := cur.RemainingBatchLength(); n != 100 {
		t.Errorf("first batch = %d docs, want 100", n)
	}
	next := int32(0)
	for cur.Next(ctx) {
		if id := cur.Current.Lookup("_id").Int32(); id != next {
			t.Fatalf("doc %d has _id %d: out of order or missing", next, id)
		}
		next++
	}
	if err := cur.Err(); err != nil {
		t.Fatalf("cursor: %v", err)
	}
	if next != cursorDocs {
		t.Errorf("iterated %d docs, want %d", next, cursorDocs)
	}
	if g := getMores.Load(); g < 14 || g > 15 {
		t.Errorf("getMore count = %d, want 14 or 15 for 1500 docs in batches of 100", g)
	}
	if b := badBatch.Load(); b != 0 {
		t.Errorf("a getMore returned %d docs, more than batchSize 100", b)
	}
}

func batchLen(reply bson.Raw) int {
	v, err := reply.LookupErr("cursor", "nextBatch")
	if err != nil {
		return -1
	}
	vals, err := v.Array().Values()
	if err != nil {
		return -1
	}
	return len(vals)
}

func testLimitBatchSize(t *testing.T, coll *mongo.Collection) {
	first, id := rawFind(t, coll, bson.D{{Key: "limit", Value: int64(250)}, {Key: "batchSize", Value: int32(100)}})
	if len(first) != 100 || id == 0 {
		t.Fatalf("find limit 250 batchSize 100: first batch %d docs, id %d; want 100 and an open cursor", len(first), id)
	}
	// The server enforces the limit even if getMore asks for more.
	next, id2, err := rawGetMore(t, coll, id, 1000)
	if err != nil {
		t.Fatalf("getMore: %v", err)
	}
	if len(next) != 150 || id2 != 0 {
		t.Errorf("getMore batchSize 1000 after limit 250: %d docs, id %d; want 150 docs and id 0", len(next), id2)
	}
	first, id = rawFind(t, coll, bson.D{{Key: "limit", Value: int64(5)}, {Key: "singleBatch", Value: true}})
	if len(first) != 5 || id != 0 {
		t.Errorf("singleBatch limit 5: %d docs id %d, want 5 docs id 0", len(first), id)
	}
	// Driver view: limit 250 with batchSize 100 yields exactly 250 docs.
	ctx := tctx(t, opTimeout)
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetLimit(250).SetBatchSize(100))
	if err != nil {
		t.Fatalf("find: %v", err)
	}
	if n := len(decodeAll(t, ctx, cur)); n != 250 {
		t.Errorf("driver find limit 250 batchSize 100 = %d docs, want 250", n)
	}
}

func testKillCursors(t *testing.T, coll *mongo.Collection) {
	_, id := rawFind(t, coll, bson.D{{Key: "batchSize", Value: int32(10)}})
	if id == 0 {
		t.Fatalf("find batchSize 10 over %d docs returned a closed cursor", cursorDocs)
	}
	var res bson.D
	err := coll.Database().RunCommand(tctx(t, opTimeout), bson.D{{Key: "killCursors", Value: coll.Name()},
		{Key: "cursors", Value: bson.A{id, int64(123456789)}}}).Decode(&res)
	if err != nil {
		t.Fatalf("killCursors: %v", err)
	}
	if got := asJSON(bson.D{{Key: "k", Value: field(res, "cursorsKilled")}, {Key: "n", Value: field(res, "cursorsNotFound")}}); got != asJSON(bson.D{{Key: "k", Value: bson.A{id}}, {Key: "n", Value: bson.A{int64(123456789)}}}) {
		t.Errorf("killCursors reply = %s, want killed [%d], notFound [123456789]", asJSON(res), id)
	}
	_, _, err = rawGetMore(t, coll, id, 0)
	wantCode(t, err, 43, "getMore after killCursors (CursorNotFound)")
}

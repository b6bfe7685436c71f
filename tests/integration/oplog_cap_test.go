package integration

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

// oplogCapDocs × oplogCapPad bytes is about three times the 1 MB oplog.
const (
	oplogCapDocs = 300
	oplogCapPad  = 10 << 10
)

// oplogStats runs collStats on local.oplog.rs.
func oplogStats(t *testing.T, c *mongo.Client) bson.D {
	t.Helper()
	var st bson.D
	err := c.Database("local").RunCommand(tctx(t, opTimeout), bson.D{{Key: "collStats", Value: "oplog.rs"}}).Decode(&st)
	if err != nil {
		t.Fatalf("collStats local.oplog.rs: %v", err)
	}
	return st
}

func asInt(v any) int64 {
	switch n := v.(type) {
	case int32:
		return int64(n)
	case int64:
		return n
	case float64:
		return int64(n)
	}
	return -1
}

// waitOplogUnderCap polls collStats until the oplog's size is at most its
// maxSize (truncation runs in the background, once a second) and returns
// the stats.
func waitOplogUnderCap(t *testing.T, c *mongo.Client, who string) bson.D {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		st := oplogStats(t, c)
		if asInt(field(st, "size")) <= asInt(field(st, "maxSize")) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: oplog stays above its cap: %s", who, asJSON(st))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkOplogStats checks the MongoDB-shaped fields of a capped oplog.
func checkOplogStats(t *testing.T, st bson.D, who string) {
	t.Helper()
	size, count, maxSize := asInt(field(st, "size")), asInt(field(st, "count")), asInt(field(st, "maxSize"))
	if field(st, "capped") != true || maxSize != 1<<20 || field(st, "ns") != "local.oplog.rs" {
		t.Errorf("%s: capped/maxSize/ns wrong: %s", who, asJSON(st))
	}
	if count <= 0 || count >= oplogCapDocs || size <= 0 || size > maxSize || size < maxSize/2 {
		t.Errorf("%s: size %d count %d with maxSize %d after %d inserts of %d bytes", who, size, count, maxSize, oplogCapDocs, oplogCapPad)
	}
	if avg := asInt(field(st, "avgObjSize")); avg != size/count || avg < oplogCapPad {
		t.Errorf("%s: avgObjSize %d, size/count %d", who, avg, size/count)
	}
}

// TestOplogCapReplicaSet fills a 1 MB oplog about three times through the
// driver: collStats on local.oplog.rs reports a capped collection within
// its maxSize on both members, the secondary still has every document,
// and a tailable cursor whose position was truncated dies with
// CappedPositionLost.
func TestOplogCapReplicaSet(t *testing.T) {
	set := harness.StartSets(t, []cluster.Spec{{Name: "rsocap", Data: 2, ExtraArgs: []string{"--oplogSize", "1"}}})[0]
	ctx := tctx(t, 90*time.Second)
	primary, err := mongo.Connect(options.Client().ApplyURI(set.URI()))
	if err != nil {
		t.Fatal(err)
	}
	defer primary.Disconnect(context.Background())
	oplog := primary.Database("local").Collection("oplog.rs")
	tail, err := oplog.Find(ctx, bson.D{}, options.Find().SetCursorType(options.Tailable).SetBatchSize(1))
	if err != nil || !tail.Next(ctx) {
		t.Fatalf("tailable find on the oplog: %v %v", err, tail.Err())
	}
	defer tail.Close(context.Background())
	coll := primary.Database("ocap").Collection("c", options.Collection().SetWriteConcern(writeconcern.Majority()))
	pad := strings.Repeat("x", oplogCapPad)
	for i := range oplogCapDocs {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "pad", Value: pad}}); err != nil {
			t.Fatal(err)
		}
	}
	checkOplogStats(t, waitOplogUnderCap(t, primary, "primary"), "primary")
	checkTailLost(ctx, t, tail)
	for _, m := range set.Members() {
		cl, err := set.Client(m)
		if err != nil {
			t.Fatal(err)
		}
		checkOplogStats(t, waitOplogUnderCap(t, cl, m.Name), m.Name)
		n, err := cl.Database("ocap").Collection("c").CountDocuments(ctx, bson.D{})
		if err != nil || n != oplogCapDocs {
			t.Errorf("member %s: %d documents (%v), want %d", m.Name, n, err, oplogCapDocs)
		}
	}
	checkCollStatsAgg(t, primary)
}

// checkTailLost reads the tailable cursor on until it fails: its position
// (the oplog's first entry) was truncated, so getMore fails with
// CappedPositionLost, as MongoDB's does.
func checkTailLost(ctx context.Context, t *testing.T, tail *mongo.Cursor) {
	t.Helper()
	for i := 0; i < 10*oplogCapDocs && tail.Next(ctx); i++ {
	}
	var ce mongo.ServerError
	if err := tail.Err(); !errors.As(err, &ce) || !ce.HasErrorCode(136) {
		t.Fatalf("tailable cursor over a truncated position: %v, want CappedPositionLost (136)", err)
	}
}

// checkCollStatsAgg: $collStats storageStats on local.oplog.rs has the
// same fields.
func checkCollStatsAgg(t *testing.T, c *mongo.Client) {
	t.Helper()
	pipe := bson.A{bson.D{{Key: "$collStats", Value: bson.D{{Key: "storageStats", Value: bson.D{}}}}}}
	cur, err := c.Database("local").Collection("oplog.rs").Aggregate(tctx(t, opTimeout), pipe)
	if err != nil {
		t.Fatalf("$collStats on local.oplog.rs: %v", err)
	}
	var docs []bson.D
	if err := cur.All(tctx(t, opTimeout), &docs); err != nil || len(docs) != 1 {
		t.Fatalf("$collStats: %d docs %v", len(docs), err)
	}
	ss, _ := field(docs[0], "storageStats").(bson.D)
	if field(ss, "capped") != true || asInt(field(ss, "maxSize")) != 1<<20 || asInt(field(ss, "count")) <= 0 ||
		asInt(field(ss, "size")) > 1<<20 {
		t.Errorf("$collStats storageStats: %s", asJSON(ss))
	}
}

// TestOplogSizeSurvivesRestart: the oplog's size and count after a clean
// restart and after a kill -9 are what they were (the accounting
// checkpoint plus the entries written after it).
func TestOplogSizeSurvivesRestart(t *testing.T) {
	s, c := startServer(t, harness.WithArgs("--oplogSize", "1"))
	pad := strings.Repeat("y", 4<<10)
	next := 0
	for _, kill := range []bool{false, true} {
		coll := c.Database("ocap").Collection("r")
		for range 300 {
			if _, err := coll.InsertOne(tctx(t, opTimeout), bson.D{{Key: "_id", Value: next}, {Key: "pad", Value: pad}}); err != nil {
				t.Fatal(err)
			}
			next++
		}
		before := waitOplogUnderCap(t, c, "before restart")
		// Every write durable, as a kill -9 finds them (a truncation batch
		// not synced yet would be lost together with its checkpoint).
		if err := c.Database("admin").RunCommand(tctx(t, opTimeout), bson.D{{Key: "fsync", Value: 1}}).Err(); err != nil {
			t.Fatal(err)
		}
		if kill {
			s.Kill9()
		}
		s.Restart(t)
		c = s.Client(t)
		after := oplogStats(t, c)
		for _, f := range []string{"size", "count"} {
			if asInt(field(after, f)) != asInt(field(before, f)) {
				t.Errorf("kill %v: %s %v after restart, %v before", kill, f, field(after, f), field(before, f))
			}
		}
	}
}

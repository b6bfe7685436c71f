package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// aggMemoryLimit is the per-stage limit these tests set (MongoDB's is
// 100 MiB), so that a few MB of data cross it.
const aggMemoryLimit = 1 << 20

// setAggLimits sets the sort and group memory limits with setParameter.
func setAggLimits(t *testing.T, c *mongo.Client, n int64) {
	t.Helper()
	for _, p := range []string{"internalQueryMaxBlockingSortMemoryUsageBytes", "internalDocumentSourceGroupMaxMemoryBytes"} {
		err := c.Database("admin").RunCommand(tctx(t, opTimeout), bson.D{{Key: "setParameter", Value: 1}, {Key: p, Value: n}}).Err()
		if err != nil {
			t.Fatalf("setParameter %s: %v (issue #9: setParameter must accept agg's memory parameters)", p, err)
		}
	}
}

// seedAggDocs inserts n documents of about 1 KB with a shuffled r.
func seedAggDocs(t *testing.T, coll *mongo.Collection, n int) {
	t.Helper()
	pad := strings.Repeat("p", 1000)
	docs := make([]any, 0, n)
	for i := range n {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "r", Value: int32((i * 7919) % n)}, {Key: "g", Value: int32(i % (n / 2))}, {Key: "pad", Value: pad}})
	}
	if _, err := coll.InsertMany(tctx(t, 4*opTimeout), docs); err != nil {
		t.Fatalf("seed: %v", err)
	}
}

// wantNoSpillFiles fails t if <dbpath>/_tmp holds files.
func wantNoSpillFiles(t *testing.T, dbpath string) {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dbpath, "_tmp"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		t.Fatalf("spill files left in %s/_tmp: %v", dbpath, ents)
	}
}

// TestAggMemorySort: a $sort over the memory limit answers 292 without
// allowDiskUse, and sorts (spilling) with it, leaving no files behind.
func TestAggMemorySort(t *testing.T) {
	srv, c := startServer(t)
	setAggLimits(t, c, aggMemoryLimit)
	coll := freshColl(t, c, "aggmem")
	const n = 4000 // ~4 MB
	seedAggDocs(t, coll, n)
	pipe := bson.A{bson.D{{Key: "$sort", Value: bson.D{{Key: "r", Value: 1}}}}, bson.D{{Key: "$project", Value: bson.D{{Key: "_id", Value: 1}, {Key: "r", Value: 1}}}}}

	_, err := coll.Aggregate(tctx(t, opTimeout), pipe, options.Aggregate().SetAllowDiskUse(false))
	wantCode(t, err, 292, "sort over the limit without allowDiskUse")
	if err != nil && !strings.Contains(err.Error(), "Sort exceeded memory limit of 1048576 bytes, but did not opt in to external sorting.") {
		t.Errorf("message: %v", err)
	}

	ctx := tctx(t, 2*opTimeout)
	cur, err := coll.Aggregate(ctx, pipe, options.Aggregate().SetAllowDiskUse(true).SetBatchSize(100))
	if err != nil {
		t.Fatalf("sort with allowDiskUse: %v", err)
	}
	got := decodeAll(t, ctx, cur)
	if len(got) != n {
		t.Fatalf("got %d documents, want %d", len(got), n)
	}
	for i, d := range got {
		if r := d[1].Value.(int32); r != int32(i) {
			t.Fatalf("document %d has r %d: not sorted", i, r)
		}
	}
	wantNoSpillFiles(t, srv.DBPath())

	// A cursor closed half way removes its files too. While it is open
	// the runs are in <dbpath>/_tmp, as mongod's.
	cur, err = coll.Aggregate(ctx, pipe, options.Aggregate().SetAllowDiskUse(true).SetBatchSize(10))
	if err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(filepath.Join(srv.DBPath(), "_tmp")); len(ents) == 0 {
		t.Errorf("no spill files in %s/_tmp while the cursor is open (issue #9: serve must call exec.Engine.SetTempDir)", srv.DBPath())
	}
	if err := cur.Close(ctx); err != nil {
		t.Fatal(err)
	}
	wantNoSpillFiles(t, srv.DBPath())
}

// TestAggMemoryGroup: a $group with many keys over the limit answers 292
// without allowDiskUse and the same groups as in memory with it.
func TestAggMemoryGroup(t *testing.T) {
	srv, c := startServer(t)
	coll := freshColl(t, c, "aggmem")
	const n = 4000
	seedAggDocs(t, coll, n)
	pipe := bson.A{
		bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$g"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}},
			{Key: "ids", Value: bson.D{{Key: "$push", Value: "$_id"}}}, {Key: "pad", Value: bson.D{{Key: "$first", Value: "$pad"}}}}}},
		bson.D{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
		bson.D{{Key: "$project", Value: bson.D{{Key: "pad", Value: 0}}}},
	}
	ctx := tctx(t, 2*opTimeout)
	cur, err := coll.Aggregate(ctx, pipe)
	if err != nil {
		t.Fatalf("in memory: %v", err)
	}
	want := decodeAll(t, ctx, cur)

	setAggLimits(t, c, aggMemoryLimit)
	_, err = coll.Aggregate(ctx, pipe, options.Aggregate().SetAllowDiskUse(false))
	wantCode(t, err, 292, "group over the limit without allowDiskUse")
	if err != nil && !strings.Contains(err.Error(), "Exceeded memory limit for $group") {
		t.Errorf("message: %v", err)
	}
	cur, err = coll.Aggregate(ctx, pipe, options.Aggregate().SetAllowDiskUse(true))
	if err != nil {
		t.Fatalf("group with allowDiskUse: %v", err)
	}
	got := decodeAll(t, ctx, cur)
	if len(got) != n/2 || asJSON(bson.A{got}) != asJSON(bson.A{want}) {
		t.Fatalf("spilled group differs from the in-memory one: %d vs %d groups", len(got), len(want))
	}
	wantNoSpillFiles(t, srv.DBPath())
}

package sharding

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestMovePrimary: movePrimary moves a database's unsharded collections
// (documents, indexes, empty ones too) from sh0 to sh1 while writers
// insert through the router: every acknowledged insert is found exactly
// once afterwards, none failed, the old primary no longer holds the
// collections, the sharded collection is untouched, config.databases
// names sh1 with lastMod + 1, and a second router that cached sh0 as the
// primary writes to sh1 (StaleDbVersion, refresh).
func TestMovePrimary(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "enableSharding", Value: "mp"}, {Key: "primaryShard", Value: "sh0"}}).Err(), "enableSharding")
	db := cl.Database("mp")
	plain := db.Collection("plain")
	setupMovePrimaryDB(t, cl, db)
	before := dbVersion(t, cl, "mp")

	r2 := harness.StartRouter(t, "cfg/"+tp.cfg.Members()[0].Host)
	cl2 := connectURI(t, r2.URI())
	_, err := cl2.Database("mp").Collection("plain").CountDocuments(ctxT(t), bson.D{})
	must(t, err, "a read through the second router caches sh0 as the primary")

	// The writers use w:"majority" and retryable writes, as an application
	// that must not lose a write would.
	w := startWriters(connectURI(t, tp.router.URI()).Database("mp").Collection("plain"), 4)
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "movePrimary", Value: "mp"}, {Key: "to", Value: "sh1"}}).Err(), "movePrimary")
	t.Logf("movePrimary took %v", time.Since(start))
	time.Sleep(300 * time.Millisecond)
	acked := w.stop(t)

	after := dbVersion(t, cl, "mp")
	if after.Primary != "sh1" || after.LastMod != before.LastMod+1 {
		t.Fatalf("config.databases after the move: %+v, want primary sh1 and lastMod %d", after, before.LastMod+1)
	}
	checkExactly(t, plain, 3000, acked)
	checkMovedShape(t, tp)

	_, err = cl2.Database("mp").Collection("plain").InsertOne(ctxT(t), bson.D{{Key: "_id", Value: "via-r2"}})
	must(t, err, "an insert through the stale second router")
	n, err := tp.shardClient(t, "sh1").Database("mp").Collection("plain").CountDocuments(ctxT(t), bson.D{{Key: "_id", Value: "via-r2"}})
	if err != nil || n != 1 {
		t.Fatalf("the stale router's insert on sh1: %d (%v), want 1", n, err)
	}
	testMovePrimaryErrors(t, admin)
}

// setupMovePrimaryDB makes mp.plain (3000 documents, a plain and a unique
// index), mp.empty (no document) and mp.sh (sharded, 100 documents).
// (relaydb has no views, capped collections or validators yet: create
// options cannot be told apart.)
func setupMovePrimaryDB(t *testing.T, cl *mongo.Client, db *mongo.Database) {
	t.Helper()
	plain := db.Collection("plain")
	docs := make([]any, 3000)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: fmt.Sprintf("seed-%d", i)}, {Key: "a", Value: i % 7}, {Key: "u", Value: i}}
	}
	_, err := plain.InsertMany(ctxT(t), docs)
	must(t, err, "seed mp.plain")
	_, err = plain.Indexes().CreateMany(ctxT(t), []mongo.IndexModel{
		{Keys: bson.D{{Key: "a", Value: 1}}},
		{Keys: bson.D{{Key: "u", Value: 1}}, Options: options.Index().SetUnique(true)},
	})
	must(t, err, "indexes of mp.plain")
	must(t, db.CreateCollection(ctxT(t), "empty"), "create mp.empty")
	must(t, cl.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "mp.sh"}, {Key: "key", Value: bson.D{{Key: "k", Value: 1}}}}).Err(), "shardCollection mp.sh")
	sh := make([]any, 100)
	for i := range sh {
		sh[i] = bson.D{{Key: "k", Value: i}}
	}
	_, err = db.Collection("sh").InsertMany(ctxT(t), sh)
	must(t, err, "seed mp.sh")
}

// checkMovedShape checks where everything is after the move.
func checkMovedShape(t *testing.T, tp *topo) {
	t.Helper()
	sh0, sh1 := tp.shardClient(t, "sh0").Database("mp"), tp.shardClient(t, "sh1").Database("mp")
	names, err := sh0.ListCollectionNames(ctxT(t), bson.D{})
	must(t, err, "list sh0's collections")
	if len(names) != 1 || names[0] != "sh" {
		t.Fatalf("sh0 keeps %v, want only the sharded collection sh", names)
	}
	if n, err := sh0.Collection("sh").CountDocuments(ctxT(t), bson.D{}); err != nil || n != 100 {
		t.Fatalf("sh0's mp.sh: %d documents (%v), want 100 (sharded collections are not moved)", n, err)
	}
	specs, err := sh1.Collection("plain").Indexes().ListSpecifications(ctxT(t))
	must(t, err, "sh1's indexes of mp.plain")
	unique := map[string]bool{}
	for _, s := range specs {
		unique[s.Name] = s.Unique != nil && *s.Unique
	}
	if _, hasA := unique["a_1"]; !hasA || !unique["u_1"] || len(specs) != 3 {
		t.Fatalf("sh1's indexes of mp.plain: %+v, want _id_, a_1 and unique u_1", specs)
	}
	names, err = sh1.ListCollectionNames(ctxT(t), bson.D{})
	must(t, err, "list sh1's collections")
	slices.Sort(names)
	if !slices.Equal(names, []string{"empty", "plain"}) {
		t.Fatalf("sh1 holds %v, want empty and plain", names)
	}
}

// testMovePrimaryErrors: MongoDB's refusals, and a move to the current
// primary is a no-op.
func testMovePrimaryErrors(t *testing.T, admin *mongo.Database) {
	t.Helper()
	run := func(cmd bson.D) error { return admin.RunCommand(ctxT(t), cmd).Err() }
	wantCode(t, run(bson.D{{Key: "movePrimary", Value: "admin"}, {Key: "to", Value: "sh0"}}), 72, "movePrimary admin")
	wantCode(t, run(bson.D{{Key: "movePrimary", Value: "a.b"}, {Key: "to", Value: "sh0"}}), 73, "movePrimary a.b")
	wantCode(t, run(bson.D{{Key: "movePrimary", Value: "mp"}, {Key: "to", Value: "nope"}}), 70, "movePrimary to an unknown shard")
	wantCode(t, run(bson.D{{Key: "movePrimary", Value: "mp"}}), 40414, "movePrimary without to")
	wantCode(t, run(bson.D{{Key: "movePrimary", Value: "nosuchdb"}, {Key: "to", Value: "sh0"}}), 26, "movePrimary of an unknown database")
	must(t, run(bson.D{{Key: "movePrimary", Value: "mp"}, {Key: "to", Value: "sh1"}}), "movePrimary to the current primary")
}

// dbVersionOf is a config.databases entry's primary and lastMod.
type dbVersionOf struct {
	Primary string
	LastMod int64
}

func dbVersion(t *testing.T, cl *mongo.Client, db string) dbVersionOf {
	t.Helper()
	var d struct {
		Primary string `bson:"primary"`
		Version bson.M `bson:"version"`
	}
	must(t, cl.Database("config").Collection("databases").FindOne(ctxT(t), bson.D{{Key: "_id", Value: db}}).Decode(&d), "config.databases %s", db)
	n, _ := d.Version["lastMod"].(int32)
	return dbVersionOf{Primary: d.Primary, LastMod: int64(n)}
}

// writers insert distinct _ids until stopped, recording the acknowledged
// ones and the errors.
type writers struct {
	stopCh chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	acked  []string
	errs   []error
}

func startWriters(c *mongo.Collection, n int) *writers {
	w := &writers{stopCh: make(chan struct{})}
	for g := range n {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			for i := 0; ; i++ {
				select {
				case <-w.stopCh:
					return
				default:
				}
				id := fmt.Sprintf("w%d-%d", g, i)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				_, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "a", Value: -1}, {Key: "u", Value: id}})
				cancel()
				w.mu.Lock()
				if err == nil {
					w.acked = append(w.acked, id)
				} else {
					w.errs = append(w.errs, err)
				}
				w.mu.Unlock()
			}
		}()
	}
	return w
}

// stop stops the writers and returns the acknowledged ids; any failed
// insert fails the test.
func (w *writers) stop(t *testing.T) []string {
	t.Helper()
	close(w.stopCh)
	w.wg.Wait()
	if len(w.errs) > 0 {
		t.Fatalf("%d inserts failed during the move, first: %v", len(w.errs), w.errs[0])
	}
	if len(w.acked) == 0 {
		t.Fatal("no insert was acknowledged")
	}
	return w.acked
}

// checkExactly checks through the router that c holds the seed documents
// and every acknowledged id, each once, and nothing else.
func checkExactly(t *testing.T, c *mongo.Collection, seeds int, acked []string) {
	t.Helper()
	cur, err := c.Find(ctxT(t), bson.D{}, options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}))
	must(t, err, "read everything back")
	seen := map[string]int{}
	for cur.Next(ctxT(t)) {
		id, _ := cur.Current.Lookup("_id").StringValueOK()
		seen[id]++
	}
	must(t, cur.Err(), "cursor")
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s read %d times", id, n)
		}
	}
	for _, id := range acked {
		if seen[id] != 1 {
			t.Errorf("acknowledged insert %s lost", id)
		}
	}
	if len(seen) != seeds+len(acked) {
		t.Errorf("%d documents, want %d seeds + %d acknowledged", len(seen), seeds, len(acked))
	}
	t.Logf("%d inserts acknowledged during the move, all present once", len(acked))
}

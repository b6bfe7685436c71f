package sharding

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// migDocs is how many documents TestMoveChunk starts with.
const migDocs = 3000

// TestMoveChunk is issue #12's chunk migration under load: a collection
// sharded on {x: 1}, split at 1500, gets the upper chunk moved with
// moveChunk while writers update and insert through the router on both
// sides of the split; then part of it comes back with moveRange (min
// only: the router splits first). After each move config.chunks names the
// recipient, the recipient holds the range, the donor's copy is deleted
// (waitForDelete), and every acknowledged write is there exactly once
// with its last acknowledged value.
func TestMoveChunk(t *testing.T) {
	tp, cl, coll, from, to := startMigration(t, 200)
	admin := cl.Database("admin")

	w := startMigWriters(t, coll, 3)
	time.Sleep(300 * time.Millisecond)
	res := admin.RunCommand(ctxT(t), bson.D{{Key: "moveChunk", Value: "mig.c"}, {Key: "find", Value: bson.D{{Key: "x", Value: int32(2000)}}},
		{Key: "to", Value: to}, {Key: "_waitForDelete", Value: true}})
	must(t, res.Err(), "moveChunk [1500, MaxKey) to %s", to)
	time.Sleep(300 * time.Millisecond)
	if got := chunkOwner(t, tp, "mig.c", 2500); got != to {
		t.Fatalf("after moveChunk the chunk of 2500 is on %s, want %s", got, to)
	}
	if got := chunkOwner(t, tp, "mig.c", 10); got != from {
		t.Fatalf("the chunk of 10 moved to %s", got)
	}
	// moveRange with min only: [2200, MaxKey) goes back.
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "moveRange", Value: "mig.c"}, {Key: "min", Value: bson.D{{Key: "x", Value: int32(2200)}}},
		{Key: "toShard", Value: from}, {Key: "waitForDelete", Value: true}}).Err(), "moveRange back")
	time.Sleep(200 * time.Millisecond)
	w.stop(t)

	if got := chunkOwner(t, tp, "mig.c", 2200); got != from {
		t.Fatalf("after moveRange the chunk of 2200 is on %s, want %s", got, from)
	}
	if got := chunkOwner(t, tp, "mig.c", 2199); got != to {
		t.Fatalf("the chunk of 2199 is on %s, want %s", got, to)
	}
	checkAcked(t, coll, w)
	// Each shard holds exactly what the router sees of its ranges, and
	// nothing of the others (the donors' copies are gone).
	for _, c := range []struct {
		shard  string
		lo, hi int32
	}{{from, 0, 1500}, {to, 1500, 2200}, {from, 2200, 1 << 30}} {
		f := bson.D{{Key: "x", Value: bson.D{{Key: "$gte", Value: c.lo}, {Key: "$lt", Value: c.hi}}}}
		routed, err := coll.CountDocuments(ctxT(t), f)
		must(t, err, "count through the router")
		if n := directCount(t, tp, c.shard, f); n != routed || n == 0 {
			t.Errorf("%s holds %d documents of [%d, %d), the router counts %d", c.shard, n, c.lo, c.hi, routed)
		}
	}
	for _, c := range []struct {
		shard  string
		lo, hi int32
	}{{to, 0, 1500}, {from, 1500, 2200}, {to, 2200, 1 << 30}} {
		if n := directCount(t, tp, c.shard, bson.D{{Key: "x", Value: bson.D{{Key: "$gte", Value: c.lo}, {Key: "$lt", Value: c.hi}}}}); n != 0 {
			t.Errorf("%s still holds %d documents of [%d, %d) it does not own", c.shard, n, c.lo, c.hi)
		}
	}
}

// startMigration starts two shards and a router with mig.c sharded on
// {x: 1}, migDocs documents (x = _id, v = 0, pad bytes of padding) split
// at x: 1500; from owns [1500, MaxKey), to is the other shard.
func startMigration(t *testing.T, pad int) (tp *topo, cl *mongo.Client, coll *mongo.Collection, from, to string) {
	t.Helper()
	tp = startTopo(t)
	cl, _ = connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "mig.c"}, {Key: "key", Value: bson.D{{Key: "x", Value: 1}}}}).Err(), "shardCollection")
	coll = cl.Database("mig").Collection("c")
	docs := make([]any, migDocs)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "x", Value: int32(i)}, {Key: "v", Value: int64(0)}, {Key: "pad", Value: fmt.Sprintf("%0*d", pad, i)}}
	}
	_, err := coll.InsertMany(ctxT(t), docs)
	must(t, err, "load")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "split", Value: "mig.c"}, {Key: "middle", Value: bson.D{{Key: "x", Value: int32(1500)}}}}).Err(), "split")
	from = chunkOwner(t, tp, "mig.c", 1500)
	return tp, cl, coll, from, otherShard(from)
}

func otherShard(s string) string {
	if s == "sh0" {
		return "sh1"
	}
	return "sh0"
}

// chunkOwner reads config.chunks (majority) for the chunk holding x.
func chunkOwner(t *testing.T, tp *topo, ns string, x int32) string {
	t.Helper()
	cfg, err := tp.cfg.Client(tp.cfg.Members()[0])
	must(t, err, "config client")
	var coll bson.M
	must(t, cfg.Database("config").Collection("collections").FindOne(ctxT(t), bson.D{{Key: "_id", Value: ns}}).Decode(&coll), "config.collections")
	cur, err := cfg.Database("config").Collection("chunks").Find(ctxT(t), bson.D{{Key: "uuid", Value: coll["uuid"]}})
	must(t, err, "config.chunks")
	var chunks []struct {
		Min   bson.Raw `bson:"min"`
		Max   bson.Raw `bson:"max"`
		Shard string   `bson:"shard"`
	}
	must(t, cur.All(ctxT(t), &chunks), "chunks")
	for _, c := range chunks {
		if boundLE(c.Min, x) && !boundLE(c.Max, x) {
			return c.Shard
		}
	}
	t.Fatalf("no chunk of %s holds x=%d: %+v", ns, x, chunks)
	return ""
}

// boundLE reports whether the bound {x: b} is <= x.
func boundLE(b bson.Raw, x int32) bool {
	v := b.Lookup("x")
	switch v.Type {
	case bson.TypeMinKey:
		return true
	case bson.TypeMaxKey:
		return false
	}
	n, _ := v.AsInt64OK()
	return n <= int64(x)
}

func directCount(t *testing.T, tp *topo, shard string, filter bson.D) int64 {
	t.Helper()
	n, err := tp.shardClient(t, shard).Database("mig").Collection("c").CountDocuments(ctxT(t), filter)
	must(t, err, "count on %s", shard)
	return n
}

// migWriters update existing documents and insert new ones through the
// router, recording each acknowledged value.
type migWriters struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	acked  map[int32]int64   // x -> last acknowledged v
	maybe  map[int32][]int64 // x -> values written since with an unknown outcome
	errs   atomic.Int64
	next   atomic.Int32
	first  []string // the first errors, for the log
}

func startMigWriters(t *testing.T, coll *mongo.Collection, n int) *migWriters {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	w := &migWriters{cancel: cancel, acked: map[int32]int64{}, maybe: map[int32][]int64{}}
	for x := range int32(migDocs) {
		w.acked[x] = 0
	}
	w.next.Store(migDocs)
	for i := range n {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.loop(ctx, coll, int32(i), int32(n))
		}()
	}
	return w
}

func (w *migWriters) loop(ctx context.Context, coll *mongo.Collection, me, n int32) {
	for i := int64(1); i < 1_000_000 && ctx.Err() == nil; i++ {
		x := (me + int32(i)*n*7) % migDocs // this writer's own documents: no two writers race on one
		if x%n != me {
			continue
		}
		if i%5 == 0 {
			nx := w.next.Add(1)
			if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: nx}, {Key: "x", Value: nx}, {Key: "v", Value: i}}); err != nil {
				w.failed(ctx, nx, i, err)
				continue
			}
			w.record(nx, i)
			continue
		}
		_, err := coll.UpdateOne(ctx, bson.D{{Key: "x", Value: x}}, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: i}}}})
		if err != nil {
			w.failed(ctx, x, i, err)
			continue
		}
		w.record(x, i)
	}
}

func (w *migWriters) record(x int32, v int64) {
	w.mu.Lock()
	w.acked[x] = v
	delete(w.maybe, x)
	w.mu.Unlock()
}

// failed notes a write whose outcome is unknown (it may have been applied).
func (w *migWriters) failed(ctx context.Context, x int32, v int64, err error) {
	w.mu.Lock()
	w.maybe[x] = append(w.maybe[x], v)
	if ctx.Err() == nil { // not the test stopping the writers
		w.errs.Add(1)
	}
	if ctx.Err() == nil && len(w.first) < 5 {
		w.first = append(w.first, err.Error())
	}
	w.mu.Unlock()
}

func (w *migWriters) stop(t *testing.T) *migWriters {
	w.cancel()
	w.wg.Wait()
	t.Logf("writers: %d acknowledged documents, %d errors %q", len(w.acked), w.errs.Load(), w.first)
	return w
}

// checkAcked reads everything through the router: each acknowledged x
// once, with its last acknowledged v.
func checkAcked(t *testing.T, coll *mongo.Collection, w *migWriters) {
	t.Helper()
	cur, err := coll.Find(ctxT(t), bson.D{}, options.Find().SetProjection(bson.D{{Key: "x", Value: 1}, {Key: "v", Value: 1}}))
	must(t, err, "find all")
	seen := map[int32]int{}
	for cur.Next(ctxT(t)) {
		x := cur.Current.Lookup("x").Int32()
		v, _ := cur.Current.Lookup("v").AsInt64OK()
		seen[x]++
		if want, ok := w.acked[x]; ok && v != want && !slices.Contains(w.maybe[x], v) && seen[x] == 1 {
			t.Errorf("x=%d has v=%d, want the last acknowledged %d (or one of %v)", x, v, want, w.maybe[x])
		}
		if _, ok := w.acked[x]; !ok && len(w.maybe[x]) == 0 {
			t.Errorf("x=%d was never written", x)
		}
	}
	must(t, cur.Err(), "cursor")
	for x := range w.acked {
		if seen[x] != 1 {
			t.Errorf("x=%d seen %d times", x, seen[x])
		}
	}
	for x := range w.maybe {
		if seen[x] > 1 {
			t.Errorf("x=%d seen %d times", x, seen[x])
		}
	}
}

// TestMoveChunkDonorKilled: the donor's primary is killed with kill -9
// while it clones a range to the other shard under writers. The moveChunk
// fails; after the restart the donor's recovery decides the migration
// from the config servers' placement (the commit was never sent: aborted),
// config.chunks still names the donor, and every acknowledged write is
// there exactly once; a second moveChunk then succeeds.
func TestMoveChunkDonorKilled(t *testing.T) {
	tp, cl, coll, from, to := startMigration(t, 10000)
	admin := cl.Database("admin")

	w := startMigWriters(t, coll, 2)
	moved := make(chan error, 1)
	go func() {
		moved <- admin.RunCommand(ctxT(t), bson.D{{Key: "moveChunk", Value: "mig.c"}, {Key: "find", Value: bson.D{{Key: "x", Value: int32(2000)}}}, {Key: "to", Value: to}}).Err()
	}()
	time.Sleep(150 * time.Millisecond)
	restartPrimary(t, tp, from)
	if err := <-moved; err == nil {
		t.Logf("moveChunk finished before the kill")
	} else {
		t.Logf("moveChunk: %v", err)
	}
	// Recovery: the coordinator document goes away on the restarted donor.
	deadline := time.Now().Add(upTimeout)
	for {
		n, err := tp.shardClient(t, from).Database("config").Collection("migrationCoordinators").CountDocuments(ctxT(t), bson.D{})
		if err == nil && n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the migration was not recovered: %d coordinator documents (%v)", n, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	w.stop(t)
	checkAcked(t, coll, w)
	owner := chunkOwner(t, tp, "mig.c", 2000)
	t.Logf("after recovery the chunk is on %s", owner)
	if owner != to {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "moveChunk", Value: "mig.c"}, {Key: "find", Value: bson.D{{Key: "x", Value: int32(2000)}}}, {Key: "to", Value: to}}).Err(), "moveChunk again")
	}
	if got := chunkOwner(t, tp, "mig.c", 2000); got != to {
		t.Fatalf("the chunk is on %s, want %s", got, to)
	}
	checkAcked(t, coll, w)
}

// TestMoveChunkErrors: MongoDB-shaped errors for bad moveChunk/moveRange
// requests, and a move to the owning shard is a no-op.
func TestMoveChunkErrors(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "mig.c"}, {Key: "key", Value: bson.D{{Key: "x", Value: 1}}}}).Err(), "shardCollection")
	_, err := cl.Database("mig").Collection("c").InsertOne(ctxT(t), bson.D{{Key: "x", Value: int32(1)}})
	must(t, err, "insert")
	owner := chunkOwner(t, tp, "mig.c", 1)
	x := func(v any) bson.D { return bson.D{{Key: "x", Value: v}} }
	for _, tc := range []struct {
		name string
		cmd  bson.D
		code int32
	}{
		{"unknown shard", bson.D{{Key: "moveChunk", Value: "mig.c"}, {Key: "find", Value: x(int32(1))}, {Key: "to", Value: "nope"}}, 70},
		{"not sharded", bson.D{{Key: "moveChunk", Value: "mig.other"}, {Key: "find", Value: x(int32(1))}, {Key: "to", Value: "sh1"}}, 118},
		{"no to", bson.D{{Key: "moveChunk", Value: "mig.c"}, {Key: "find", Value: x(int32(1))}}, 40414},
		{"find and bounds", bson.D{{Key: "moveChunk", Value: "mig.c"}, {Key: "find", Value: x(int32(1))}, {Key: "bounds", Value: bson.A{x(bson.MinKey{}), x(bson.MaxKey{})}}, {Key: "to", Value: "sh1"}}, 72},
		{"bounds not a chunk", bson.D{{Key: "moveChunk", Value: "mig.c"}, {Key: "bounds", Value: bson.A{x(int32(0)), x(int32(5))}}, {Key: "to", Value: "sh1"}}, 72},
		{"find without the key", bson.D{{Key: "moveChunk", Value: "mig.c"}, {Key: "find", Value: bson.D{{Key: "y", Value: 1}}}, {Key: "to", Value: "sh1"}}, 61},
		{"moveRange without min", bson.D{{Key: "moveRange", Value: "mig.c"}, {Key: "toShard", Value: "sh1"}}, 72},
		{"moveRange min not a key", bson.D{{Key: "moveRange", Value: "mig.c"}, {Key: "min", Value: bson.D{{Key: "y", Value: 1}}}, {Key: "toShard", Value: "sh1"}}, 72},
		{"off admin", bson.D{{Key: "moveChunk", Value: "mig.c"}, {Key: "find", Value: x(int32(1))}, {Key: "to", Value: "sh1"}}, 13},
	} {
		db := admin
		if tc.name == "off admin" {
			db = cl.Database("mig")
		}
		wantCode(t, db.RunCommand(ctxT(t), tc.cmd).Err(), tc.code, tc.name)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "moveChunk", Value: "mig.c"}, {Key: "find", Value: x(int32(1))}, {Key: "to", Value: owner}}).Err(), "move to the owner")
	if got := chunkOwner(t, tp, "mig.c", 1); got != owner {
		t.Fatalf("a move to the owner moved the chunk to %s", got)
	}
	// The shard-side commands are refused off a shard.
	cfg, err := tp.cfg.Client(tp.cfg.Members()[0])
	must(t, err, "config client")
	wantCode(t, cfg.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "_shardsvrMoveRange", Value: "mig.c"}, {Key: "toShard", Value: "sh1"},
		{Key: "min", Value: x(bson.MinKey{})}, {Key: "max", Value: x(bson.MaxKey{})}}).Err(), 203, "_shardsvrMoveRange on a config server")
	wantCode(t, tp.shardClient(t, owner).Database("admin").RunCommand(ctxT(t), bson.D{{Key: "_migrateClone", Value: 1}, {Key: "sessionId", Value: "none"}}).Err(), 20, "_migrateClone of no session")
}

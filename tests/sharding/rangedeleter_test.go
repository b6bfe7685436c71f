package sharding

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// rdOrphans is how many orphans TestRangeDeleter writes straight to sh1.
const rdOrphans = 25

// TestRangeDeleter is issue #12's range deleter on a shard: on a
// collection sharded on {x: "hashed"} (two chunks per shard), orphans
// written straight to sh1 in a chunk sh0 owns are deleted by a task
// scheduled on sh1 (_shardsvrScheduleRangeDeletion, in batches of 3) and
// cleanupOrphaned waits for it; sh1's own documents stay; a task for a
// range sh1 owns deletes nothing; a delayed task persisted in
// config.rangeDeletions survives kill -9 and a restart of sh1's primary
// and runs once orphanCleanupDelaySecs is 0; a secondary refuses
// cleanupOrphaned.
func TestRangeDeleter(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	var res bson.M
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "rdel.c"},
		{Key: "key", Value: bson.D{{Key: "x", Value: "hashed"}}}}).Decode(&res), "shardCollection rdel.c")
	on0, on1 := rdChunks(t, cl, res["collectionUUID"])
	docs := make([]any, 60)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "x", Value: int32(i)}}
	}
	_, err := cl.Database("rdel").Collection("c").InsertMany(ctxT(t), docs)
	must(t, err, "insert through the router")

	// Orphans on sh1 with x hashing into sh0's chunk on0.
	var orphans []any
	for x := int32(1000); len(orphans) < rdOrphans && x < 100000; x++ {
		if hashedIn(on0, x) {
			orphans = append(orphans, bson.D{{Key: "_id", Value: "o" + itoa(int(x))}, {Key: "x", Value: x}, {Key: "orphan", Value: true}})
		}
	}
	sh1 := tp.shardClient(t, "sh1")
	_, err = sh1.Database("rdel").Collection("c").InsertMany(ctxT(t), orphans)
	must(t, err, "insert orphans on sh1")
	owned := rdCount(t, sh1, bson.D{{Key: "orphan", Value: bson.D{{Key: "$exists", Value: false}}}})
	if owned == 0 || owned == int64(len(docs)) {
		t.Fatalf("sh1 holds %d of %d routed documents", owned, len(docs))
	}
	sh1Admin := sh1.Database("admin")
	must(t, sh1Admin.RunCommand(ctxT(t), bson.D{{Key: "setParameter", Value: 1}, {Key: "rangeDeleterBatchSize", Value: 3}}).Err(), "setParameter")

	t.Run("bad input", func(t *testing.T) { checkRangeErrors(t, sh1Admin, on0) })
	t.Run("secondary refuses", func(t *testing.T) {
		c := tp.shards["sh1"]
		if len(c.Members()) < 2 {
			t.Skip("sh1 has no secondary")
		}
		sec, err := c.Client(c.Members()[1])
		must(t, err, "connect to sh1's secondary")
		err = sec.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "cleanupOrphaned", Value: "rdel.c"}}).Err()
		if !isCode(err, 10107) {
			t.Fatalf("cleanupOrphaned on a secondary: %v, want NotWritablePrimary", err)
		}
	})
	t.Run("owned range is skipped", func(t *testing.T) {
		rdSchedule(t, sh1Admin, on1, "now")
		rdCleanup(t, sh1Admin, 20000)
		if n := rdCount(t, sh1, bson.D{}); n != owned+rdOrphans {
			t.Fatalf("sh1 holds %d documents, want %d (nothing deleted)", n, owned+rdOrphans)
		}
	})
	t.Run("delayed task survives a restart", func(t *testing.T) {
		rdSchedule(t, sh1Admin, on0, "delayed")
		err := sh1Admin.RunCommand(ctxT(t), bson.D{{Key: "cleanupOrphaned", Value: "rdel.c"}, {Key: "maxTimeMS", Value: 300}}).Err()
		if !isCode(err, 50) {
			t.Fatalf("cleanupOrphaned with a delayed task pending: %v, want MaxTimeMSExpired", err)
		}
		if n := rdCount(t, sh1, bson.D{{Key: "orphan", Value: true}}); n != rdOrphans {
			t.Fatalf("%d orphans before the delay, want %d", n, rdOrphans)
		}
		restartPrimary(t, tp, "sh1")
		var task struct {
			NS   string `bson:"nss"`
			When string `bson:"whenToClean"`
			N    int64  `bson:"numOrphanDocs"`
		}
		must(t, sh1.Database("config").Collection("rangeDeletions").FindOne(ctxT(t), bson.D{}).Decode(&task), "config.rangeDeletions after the restart")
		if task.NS != "rdel.c" || task.When != "delayed" || task.N != rdOrphans {
			t.Fatalf("task after the restart %+v", task)
		}
		must(t, sh1Admin.RunCommand(ctxT(t), bson.D{{Key: "setParameter", Value: 1}, {Key: "orphanCleanupDelaySecs", Value: 0}}).Err(), "setParameter")
		rdCleanup(t, sh1Admin, 20000)
		if n := rdCount(t, sh1, bson.D{{Key: "orphan", Value: true}}); n != 0 {
			t.Fatalf("%d orphans left", n)
		}
		if n := rdCount(t, sh1, bson.D{}); n != owned {
			t.Fatalf("sh1 holds %d documents, want its %d", n, owned)
		}
		n, err := cl.Database("rdel").Collection("c").CountDocuments(ctxT(t), bson.D{})
		if err != nil || n != int64(len(docs)) {
			t.Fatalf("router counts %d (%v), want %d", n, err, len(docs))
		}
	})
}

// rdChunks returns a chunk sh0 owns and one sh1 owns.
func rdChunks(t *testing.T, cl *mongo.Client, uuid any) (on0, on1 routing.Chunk) {
	t.Helper()
	cur, err := cl.Database("config").Collection("chunks").Find(ctxT(t), bson.D{{Key: "uuid", Value: uuid}})
	must(t, err, "config.chunks")
	var rows []chunkRow
	must(t, cur.All(ctxT(t), &rows), "config.chunks")
	for _, r := range rows {
		c := routing.Chunk{Min: r.Min, Max: r.Max, Shard: r.Shard}
		switch r.Shard {
		case "sh0":
			on0 = c
		case "sh1":
			on1 = c
		}
	}
	if on0.Min == nil || on1.Min == nil {
		t.Fatalf("chunks %+v: want one on each shard", rows)
	}
	return on0, on1
}

var rdPattern = key.MustParse(bson.D{{Key: "x", Value: "hashed"}})

// hashedIn reports whether x's hash lies in c.
func hashedIn(c routing.Chunk, x int32) bool {
	k, err := rdPattern.Extract(bson.D{{Key: "x", Value: x}})
	return err == nil && c.Contains(k)
}

func rdCount(t *testing.T, cl *mongo.Client, filter bson.D) int64 {
	t.Helper()
	n, err := cl.Database("rdel").Collection("c").CountDocuments(ctxT(t), filter)
	must(t, err, "count %v", filter)
	return n
}

func rdSchedule(t *testing.T, admin *mongo.Database, c routing.Chunk, when string) {
	t.Helper()
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "_shardsvrScheduleRangeDeletion", Value: "rdel.c"},
		{Key: "range", Value: bson.D{{Key: "min", Value: c.Min}, {Key: "max", Value: c.Max}}},
		{Key: "whenToClean", Value: when}}).Err(), "schedule %s", c.Range())
}

func rdCleanup(t *testing.T, admin *mongo.Database, maxMS int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(maxMS)*time.Millisecond+5*time.Second)
	defer cancel()
	must(t, admin.RunCommand(ctx, bson.D{{Key: "cleanupOrphaned", Value: "rdel.c"}, {Key: "maxTimeMS", Value: maxMS}}).Err(), "cleanupOrphaned")
}

// checkRangeErrors: MongoDB-shaped errors for bad requests, no task
// persisted.
func checkRangeErrors(t *testing.T, admin *mongo.Database, c routing.Chunk) {
	for _, tc := range []struct {
		cmd  bson.D
		code int32
	}{
		{bson.D{{Key: "cleanupOrphaned", Value: "nodot"}}, 73},
		{bson.D{{Key: "_shardsvrScheduleRangeDeletion", Value: "rdel.unsharded"},
			{Key: "range", Value: bson.D{{Key: "min", Value: c.Min}, {Key: "max", Value: c.Max}}}}, 118},
		{bson.D{{Key: "_shardsvrScheduleRangeDeletion", Value: "rdel.c"},
			{Key: "range", Value: bson.D{{Key: "min", Value: c.Max}, {Key: "max", Value: c.Min}}}}, 2},
		{bson.D{{Key: "_shardsvrScheduleRangeDeletion", Value: "rdel.c"}, {Key: "range", Value: bson.D{{Key: "min", Value: 1}}}}, 14},
		{bson.D{{Key: "_shardsvrScheduleRangeDeletion", Value: "rdel.c"},
			{Key: "range", Value: bson.D{{Key: "min", Value: c.Min}, {Key: "max", Value: c.Max}}}, {Key: "whenToClean", Value: "later"}}, 2},
		{bson.D{{Key: "setParameter", Value: 1}, {Key: "rangeDeleterBatchSize", Value: 0}}, 2},
	} {
		if err := admin.RunCommand(ctxT(t), tc.cmd).Err(); !isCode(err, tc.code) {
			t.Errorf("%v: %v, want code %d", tc.cmd, err, tc.code)
		}
	}
}

// restartPrimary kill -9s set's primary, restarts it and waits (bounded)
// for a primary.
func restartPrimary(t *testing.T, tp *topo, set string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), upTimeout)
	defer cancel()
	c := tp.shards[set]
	m, err := c.Kill(ctx, "primary")
	must(t, err, "kill -9 %s's primary", set)
	_, err = c.Restart(ctx, m.Name)
	must(t, err, "restart %s", m.Name)
	_, err = c.WaitPrimary(ctx)
	must(t, err, "%s's primary after the restart", set)
}

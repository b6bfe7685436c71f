package sharding

import (
	"errors"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// TestConfigsvrCommitChunkMigration drives the config server's side of a
// migration by hand (no data moves): _configsvrCommitChunkMigration on
// the config primary moves [0, MaxKey) of a two-chunk collection to the
// other shard (major bump, the donor's other chunk bumped to major.1), a
// retried commit changes nothing, a stale one is refused,
// _configsvrEnsureChunkVersionIsGreaterThan makes a commit carrying the
// fenced version fail, the commands are refused off a config server and
// off admin, and after flushRouterConfig the router sends new documents
// of the range to the recipient.
func TestConfigsvrCommitChunkMigration(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "mc.c"}, {Key: "key", Value: bson.D{{Key: "x", Value: 1}}}}).Err(), "shardCollection")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "split", Value: "mc.c"}, {Key: "middle", Value: bson.D{{Key: "x", Value: 0}}}}).Err(), "split at 0")

	cfgCl, err := tp.cfg.Client(tp.cfg.Members()[0])
	must(t, err, "config client")
	var coll struct {
		Epoch     bson.ObjectID  `bson:"lastmodEpoch"`
		Timestamp bson.Timestamp `bson:"timestamp"`
		UUID      bson.Binary    `bson:"uuid"`
	}
	must(t, cfgCl.Database("config").Collection("collections").FindOne(ctxT(t), bson.D{{Key: "_id", Value: "mc.c"}}).Decode(&coll), "config.collections")
	chunk := func(lo any) chunkRow {
		t.Helper()
		var r chunkRow
		must(t, cfgCl.Database("config").Collection("chunks").FindOne(ctxT(t), bson.D{{Key: "uuid", Value: coll.UUID}, {Key: "min", Value: bson.D{{Key: "x", Value: lo}}}}).Decode(&r), "chunk at %v", lo)
		return r
	}
	upper, lower := chunk(int32(0)), chunk(bson.MinKey{})
	donor := upper.Shard
	recipient := map[string]string{"sh0": "sh1", "sh1": "sh0"}[donor]
	if lower.Shard != donor || upper.Lastmod != (bson.Timestamp{T: 1, I: 2}) || lower.Lastmod != (bson.Timestamp{T: 1, I: 1}) {
		t.Fatalf("after the split: %+v %+v, want both on one shard at 1|1 and 1|2", lower, upper)
	}
	version := func(major, minor uint32) bson.D {
		return bson.D{{Key: "e", Value: coll.Epoch}, {Key: "t", Value: coll.Timestamp}, {Key: "v", Value: bson.Timestamp{T: major, I: minor}}}
	}
	commit := func(lo, hi any, from, to string, major, minor uint32) (bson.Raw, error) {
		return cfgCl.Database("admin").RunCommand(ctxT(t), bson.D{
			{Key: "_configsvrCommitChunkMigration", Value: "mc.c"},
			{Key: "fromShard", Value: from}, {Key: "toShard", Value: to},
			{Key: "migratedChunk", Value: bson.D{{Key: "min", Value: bson.D{{Key: "x", Value: lo}}}, {Key: "max", Value: bson.D{{Key: "x", Value: hi}}}, {Key: "lastmod", Value: version(major, minor)}}},
			{Key: "fromShardCollectionVersion", Value: version(major, minor)},
			{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}},
		}).Raw()
	}

	reply, err := commit(int32(0), bson.MaxKey{}, donor, recipient, 1, 2)
	must(t, err, "commit [0, MaxKey) to %s", recipient)
	if tt, ti, ok := reply.Lookup("shardVersion", "v").TimestampOK(); !ok || tt != 2 || ti != 1 {
		t.Fatalf("commit reply %v, want the donor's shardVersion 2|1", reply)
	}
	upper, lower = chunk(int32(0)), chunk(bson.MinKey{})
	if upper.Shard != recipient || upper.Lastmod != (bson.Timestamp{T: 2}) || lower.Shard != donor || lower.Lastmod != (bson.Timestamp{T: 2, I: 1}) {
		t.Fatalf("after the commit: %+v %+v, want [0, MaxKey) on %s at 2|0 and [MinKey, 0) on %s at 2|1", upper, lower, recipient, donor)
	}

	// A retry of the same commit is answered and changes nothing; moving
	// the chunk back with the version it had before is refused.
	_, err = commit(int32(0), bson.MaxKey{}, donor, recipient, 1, 2)
	must(t, err, "retried commit")
	if again := chunk(int32(0)); again.Shard != upper.Shard || again.Lastmod != upper.Lastmod {
		t.Fatalf("a retried commit changed the chunk: %+v, was %+v", again, upper)
	}
	_, err = commit(int32(0), bson.MaxKey{}, recipient, donor, 1, 2)
	wantCode(t, err, 117, "stale commit")

	// The fence: [MinKey, 0) at 2|1 is bumped past the collection version,
	// and a commit still carrying 2|1 fails.
	must(t, cfgCl.Database("admin").RunCommand(ctxT(t), bson.D{
		{Key: "_configsvrEnsureChunkVersionIsGreaterThan", Value: 1},
		{Key: "minKey", Value: bson.D{{Key: "x", Value: bson.MinKey{}}}}, {Key: "maxKey", Value: bson.D{{Key: "x", Value: int32(0)}}},
		{Key: "version", Value: version(2, 1)}, {Key: "collectionUUID", Value: coll.UUID}, {Key: "nss", Value: "mc.c"},
		{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}},
	}).Err(), "fence")
	if fenced := chunk(bson.MinKey{}); fenced.Shard != donor || fenced.Lastmod != (bson.Timestamp{T: 3}) {
		t.Fatalf("fenced chunk %+v, want on %s at 3|0", fenced, donor)
	}
	_, err = commit(bson.MinKey{}, int32(0), donor, recipient, 2, 1)
	wantCode(t, err, 117, "commit after the fence")
	if still := chunk(bson.MinKey{}); still.Shard != donor {
		t.Fatalf("a fenced commit moved the chunk: %+v", still)
	}

	// Off a config server, and off admin.
	shCmd := bson.D{{Key: "_configsvrCommitChunkMigration", Value: "mc.c"}, {Key: "fromShard", Value: donor}, {Key: "toShard", Value: recipient},
		{Key: "migratedChunk", Value: bson.D{{Key: "min", Value: bson.D{{Key: "x", Value: int32(0)}}}, {Key: "max", Value: bson.D{{Key: "x", Value: bson.MaxKey{}}}}}},
		{Key: "fromShardCollectionVersion", Value: version(1, 2)}}
	wantCode(t, tp.shardClient(t, donor).Database("admin").RunCommand(ctxT(t), shCmd).Err(), 20, "on a shard")
	wantCode(t, cfgCl.Database("mc").RunCommand(ctxT(t), shCmd).Err(), 13, "off admin")

	// Malformed requests get MongoDB-shaped errors and change nothing.
	bad := []struct {
		cmd  bson.D
		code int32
	}{
		{bson.D{{Key: "_configsvrCommitChunkMigration", Value: "mc.c"}, {Key: "toShard", Value: recipient},
			{Key: "migratedChunk", Value: bson.D{}}, {Key: "fromShardCollectionVersion", Value: version(1, 2)}}, 40414}, // fromShard missing
		{bson.D{{Key: "_configsvrCommitChunkMigration", Value: "mc.c"}, {Key: "fromShard", Value: donor}, {Key: "toShard", Value: recipient},
			{Key: "migratedChunk", Value: bson.D{{Key: "min", Value: bson.D{{Key: "x", Value: int32(0)}}}}}, {Key: "fromShardCollectionVersion", Value: version(1, 2)}}, 4}, // max missing
		{bson.D{{Key: "_configsvrCommitChunkMigration", Value: "mc.c"}, {Key: "fromShard", Value: donor}, {Key: "toShard", Value: recipient},
			{Key: "migratedChunk", Value: bson.D{{Key: "min", Value: bson.D{{Key: "x", Value: int32(0)}}}, {Key: "max", Value: bson.D{{Key: "x", Value: bson.MaxKey{}}}}}},
			{Key: "fromShardCollectionVersion", Value: "2|0"}}, 14},
		{bson.D{{Key: "_configsvrEnsureChunkVersionIsGreaterThan", Value: 1}, {Key: "minKey", Value: bson.D{}}, {Key: "maxKey", Value: bson.D{}},
			{Key: "version", Value: version(1, 0)}, {Key: "collectionUUID", Value: "not a uuid"}, {Key: "nss", Value: "mc.c"}}, 14},
	}
	for i, b := range bad {
		wantCode(t, cfgCl.Database("admin").RunCommand(ctxT(t), b.cmd).Err(), b.code, fmt.Sprintf("bad request %d", i))
	}
	if now := chunk(int32(0)); now.Shard != recipient || now.Lastmod != (bson.Timestamp{T: 2}) {
		t.Fatalf("bad requests changed [0, MaxKey): %+v", now)
	}

	// The router, refreshed, sends the range's new documents to the recipient.
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "flushRouterConfig", Value: "mc.c"}}).Err(), "flushRouterConfig")
	docs := []any{bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: 5}}, bson.D{{Key: "_id", Value: 2}, {Key: "x", Value: 500}}, bson.D{{Key: "_id", Value: 3}, {Key: "x", Value: -5}}}
	_, err = cl.Database("mc").Collection("c").InsertMany(ctxT(t), docs)
	must(t, err, "insert through the router")
	for shard, want := range map[string]int64{recipient: 2, donor: 1} {
		n, err := tp.shardClient(t, shard).Database("mc").Collection("c").CountDocuments(ctxT(t), bson.D{})
		must(t, err, "count on %s", shard)
		if n != want {
			t.Fatalf("%s holds %d documents, want %d (x >= 0 on %s)", shard, n, want, recipient)
		}
	}
	var d bson.M
	must(t, cl.Database("mc").Collection("c").FindOne(ctxT(t), bson.D{{Key: "x", Value: 500}}).Decode(&d), "find x=500 through the router")
}

// wantCode fails unless err is a server error with code.
func wantCode(t *testing.T, err error, code int32, what string) {
	t.Helper()
	var se mongo.ServerError
	if err == nil || !errors.As(err, &se) || !se.HasErrorCode(int(code)) {
		t.Fatalf("%s: %v, want code %d", what, err, code)
	}
}

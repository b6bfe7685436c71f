package sharding

import (
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/internal/netclient"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
	"github.com/relaydb/relaydb/internal/shard/shardsvr"
)

// TestShardVersionCheck talks to a shard directly as a router would: a
// versioned find before the shard has an identity, then, with the
// shardIdentity written (as addShard does) and db.c sharded on {x: 1} in
// two chunks on sh0, a find with a stale shardVersion (StaleConfig with
// MongoDB's StaleConfigInfo), one with the right version (documents) and
// an unsharded collection's UNSHARDED with its database version.
func TestShardVersionCheck(t *testing.T) {
	cfgSet, sh0 := startConfigAndShard(t)
	ctx := ctxT(t)
	pool := netclient.NewPool(netclient.Options{})
	t.Cleanup(pool.Close)
	cat := configsvr.NewCatalog(configsvr.NewPrimaryRunner(pool, seed(cfgSet)))
	shardCl, err := sh0.Client(sh0.Members()[0])
	must(t, err, "connect sh0")
	db := shardCl.Database("db")
	_, err = db.Collection("c").InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: -5}}, bson.D{{Key: "_id", Value: 2}, {Key: "x", Value: 5}}})
	must(t, err, "insert unversioned")

	coll := configsvr.NewCollection("db.c", key.MustParse(bson.D{{Key: "x", Value: 1}}), false, time.Now())
	right := routing.ChunkVersion{Epoch: coll.Epoch, Timestamp: coll.Timestamp, Major: 1, Minor: 1}
	checkCode(t, db.RunCommand(ctx, versionedFind("c", right)).Err(), 203, "before the shardIdentity")

	must(t, configsvr.InsertShardIdentity(ctx, configsvr.NewPrimaryRunner(pool, seed(sh0)), configsvr.ShardIdentity{
		ShardName: "sh0", ClusterID: bson.NewObjectID(), ConfigsvrConnectionString: seed(cfgSet),
	}), "write shardIdentity")
	split := bson.D{{Key: "x", Value: int32(0)}}
	must(t, cat.CreateShardedCollection(ctx, coll, []routing.Chunk{
		{Min: coll.Key.GlobalMin(), Max: split, Shard: "sh0", Lastmod: routing.ChunkVersion{Epoch: coll.Epoch, Timestamp: coll.Timestamp, Major: 1}},
		{Min: split, Max: coll.Key.GlobalMax(), Shard: "sh0", Lastmod: right},
	}), "shard db.c")

	// A router still holding a previous generation of db.c.
	stale := routing.ChunkVersion{Epoch: bson.NewObjectID(), Timestamp: bson.Timestamp{T: coll.Timestamp.T - 60, I: 1}, Major: 3, Minor: 2}
	err = db.RunCommand(ctx, versionedFind("c", stale)).Err()
	ce := checkCode(t, err, 13388, "stale shardVersion")
	wantInfo := bson.D{
		{Key: "ns", Value: "db.c"},
		{Key: "vReceived", Value: shardsvr.ShardVersionDoc(stale)},
		{Key: "vWanted", Value: shardsvr.ShardVersionDoc(right)},
		{Key: "shardId", Value: "sh0"},
	}
	for _, f := range wantInfo {
		got, err := ce.Raw.LookupErr(f.Key)
		want := bsonValue(t, f.Value)
		if err != nil || !got.Equal(want) {
			t.Errorf("StaleConfig reply %s = %v, want %v (reply %s)", f.Key, got, want, ce.Raw)
		}
	}
	if ce.Name != "StaleConfig" {
		t.Errorf("codeName %q", ce.Name)
	}

	var reply struct {
		Cursor struct {
			FirstBatch []bson.M `bson:"firstBatch"`
		} `bson:"cursor"`
	}
	must(t, db.RunCommand(ctx, versionedFind("c", right)).Decode(&reply), "find with the right shardVersion")
	if n := len(reply.Cursor.FirstBatch); n != 2 {
		t.Fatalf("right version: %d documents, want 2", n)
	}

	// A stale insert is a write error (with the same extra info) and
	// writes nothing.
	err = db.RunCommand(ctx, bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "x", Value: 7}}}},
		{Key: "shardVersion", Value: shardsvr.ShardVersionDoc(stale)}}).Err()
	var we mongo.WriteException
	if !errors.As(err, &we) || len(we.WriteErrors) != 1 || we.WriteErrors[0].Code != 13388 ||
		we.WriteErrors[0].Raw.Lookup("shardId").StringValue() != "sh0" {
		t.Fatalf("stale insert: %v", err)
	}
	if n, err := db.Collection("c").CountDocuments(ctx, bson.D{}); err != nil || n != 2 {
		t.Fatalf("after the stale insert: %d documents, %v", n, err)
	}

	// An unsharded collection of a database whose primary is sh0.
	must(t, cat.InsertShard(ctx, configsvr.Shard{ID: "sh0", Host: seed(sh0), State: configsvr.ShardActive}), "add sh0")
	dbEntry, err := cat.CreateDatabase(ctx, "db", "sh0")
	must(t, err, "create db")
	unsharded := append(versionedFind("u", shardsvr.Unsharded), bson.E{Key: "databaseVersion", Value: dbEntry.Version.Doc()})
	must(t, db.RunCommand(ctx, unsharded).Err(), "UNSHARDED with the database version")
	old := dbEntry.Version
	old.LastMod++
	staleDB := append(versionedFind("u", shardsvr.Unsharded), bson.E{Key: "databaseVersion", Value: old.Doc()})
	checkCode(t, db.RunCommand(ctx, staleDB).Err(), 249, "wrong database version")
}

// versionedFind is a find of db.<coll> carrying shardVersion v.
func versionedFind(coll string, v routing.ChunkVersion) bson.D {
	return bson.D{{Key: "find", Value: coll}, {Key: "shardVersion", Value: shardsvr.ShardVersionDoc(v)}}
}

func checkCode(t *testing.T, err error, code int32, what string) mongo.CommandError {
	t.Helper()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != code {
		t.Fatalf("%s: %v, want code %d", what, err, code)
	}
	return ce
}

func bsonValue(t *testing.T, v any) bson.RawValue {
	t.Helper()
	raw, err := bson.Marshal(bson.D{{Key: "v", Value: v}})
	must(t, err, "marshal")
	return bson.Raw(raw).Lookup("v")
}

// startConfigAndShard starts a 1-member config server set (cfg) and a
// 1-member shard set (sh0) in parallel; both are stopped by t.Cleanup.
func startConfigAndShard(t *testing.T) (cfgSet, sh0 *cluster.Cluster) {
	t.Helper()
	sets := startSets(t, []cluster.Spec{
		{Name: "cfg", ExtraArgs: []string{"--configsvr"}},
		{Name: "sh0", ExtraArgs: []string{"--shardsvr"}},
	})
	return sets[0], sets[1]
}

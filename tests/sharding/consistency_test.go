package sharding

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// inconsistency is one document of checkMetadataConsistency's cursor.
type inconsistency struct {
	Type    string `bson:"type"`
	Details bson.M `bson:"details"`
}

// TestCheckMetadataConsistency: a clean cluster has no inconsistency; an
// unsharded collection created behind the router's back on a shard that
// is not its database's primary is MisplacedCollection; a shard key index
// dropped on one shard is MissingShardKeyIndex and InconsistentIndex; the
// database and collection scopes see only their part.
func TestCheckMetadataConsistency(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "enableSharding", Value: "mc"}, {Key: "primaryShard", Value: "sh0"}}).Err(), "enableSharding")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "mc.h"}, {Key: "key", Value: bson.D{{Key: "k", Value: "hashed"}}}}).Err(), "shardCollection")
	_, err := cl.Database("mc").Collection("plain").InsertOne(ctxT(t), bson.D{{Key: "a", Value: 1}})
	must(t, err, "insert into an unsharded collection")

	check := func(db string, scope any) []inconsistency {
		t.Helper()
		cur, err := cl.Database(db).RunCommandCursor(ctxT(t), bson.D{{Key: "checkMetadataConsistency", Value: scope}})
		must(t, err, "checkMetadataConsistency on %s", db)
		var out []inconsistency
		must(t, cur.All(ctxT(t), &out), "read the cursor")
		return out
	}
	if got := check("admin", 1); len(got) != 0 {
		t.Fatalf("a clean cluster: %+v, want no inconsistency", got)
	}

	// Behind the router: a stray collection on sh1 and a dropped index.
	sh1 := tp.shardClient(t, "sh1")
	_, err = sh1.Database("mc").Collection("stray").InsertOne(ctxT(t), bson.D{{Key: "a", Value: 1}})
	must(t, err, "insert on sh1 directly")
	ixName := hashedKeyIndex(t, sh1)
	must(t, sh1.Database("mc").Collection("h").Indexes().DropOne(ctxT(t), ixName), "drop %s on sh1", ixName)

	got := check("admin", 1)
	want := map[string]string{"MisplacedCollection": "mc.stray", "MissingShardKeyIndex": "mc.h", "InconsistentIndex": "mc.h"}
	if len(got) != len(want) {
		t.Fatalf("after the changes: %+v, want %v", got, want)
	}
	for _, in := range got {
		if ns := want[in.Type]; ns == "" || in.Details["namespace"] != ns {
			t.Fatalf("unexpected %+v in %+v, want %v", in, got, want)
		}
		if in.Type != "InconsistentIndex" && in.Details["shard"] != "sh1" {
			t.Fatalf("%s names shard %v, want sh1", in.Type, in.Details["shard"])
		}
	}
	if got := check("mc", "plain"); len(got) != 0 {
		t.Fatalf("collection scope mc.plain: %+v, want nothing", got)
	}
	if got := check("mc", "stray"); len(got) != 1 || got[0].Type != "MisplacedCollection" {
		t.Fatalf("collection scope mc.stray: %+v, want MisplacedCollection only", got)
	}
	if got := check("other", 1); len(got) != 0 {
		t.Fatalf("database scope other: %+v, want nothing", got)
	}
}

// hashedKeyIndex returns the name of the index on mc.h's key field k on a
// shard (k_hashed, or k_1 where the shard key index is ascending).
func hashedKeyIndex(t *testing.T, cl *mongo.Client) string {
	t.Helper()
	specs, err := cl.Database("mc").Collection("h").Indexes().ListSpecifications(ctxT(t))
	must(t, err, "listIndexes mc.h")
	for _, s := range specs {
		var key bson.D
		must(t, bson.Unmarshal(s.KeysDocument, &key), "index key")
		if len(key) > 0 && key[0].Key == "k" {
			return s.Name
		}
	}
	t.Fatalf("no index on k among %+v", specs)
	return ""
}

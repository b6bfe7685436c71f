package sharding

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestHashedKeyIndexAndExplain: a hashed shard key gets a real hashed
// index on the shards, which their planners use for equality on the key;
// explain through the router names the shards the command targets.
func TestHashedKeyIndexAndExplain(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "hx.c"}, {Key: "key", Value: bson.D{{Key: "x", Value: "hashed"}}}}).Err(), "shardCollection hx.c")
	db := cl.Database("hx")
	docs := make([]any, 100)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "x", Value: i}, {Key: "g", Value: i % 5}}
	}
	_, err := db.Collection("c").InsertMany(ctxT(t), docs)
	must(t, err, "insert")

	t.Run("hashed index on the shards", func(t *testing.T) {
		for _, s := range []string{"sh0", "sh1"} {
			key := indexKey(t, tp.shardClient(t, s).Database("hx").Collection("c"), "x_hashed")
			if len(key) != 1 || key[0].Key != "x" || key[0].Value != "hashed" {
				t.Fatalf("%s: x_hashed key %v", s, key)
			}
		}
	})

	t.Run("find by the key: one shard, the hashed index", func(t *testing.T) {
		ex := runExplain(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "x", Value: 42}}}})
		shards := winningShards(t, ex, "SINGLE_SHARD", 1)
		owner := shards[0].Lookup("shardName").StringValue()
		if n, err := tp.shardClient(t, owner).Database("hx").Collection("c").CountDocuments(ctxT(t), bson.D{{Key: "x", Value: 42}}); err != nil || n != 1 {
			t.Fatalf("explain targets %s, which holds %d documents with x 42 (%v)", owner, n, err)
		}
		if cs := shards[0].Lookup("connectionString").StringValue(); cs != seed(tp.shards[owner]) && !strings.HasPrefix(cs, tp.shards[owner].Spec().Name+"/") {
			t.Errorf("connectionString %v", shards[0].Lookup("connectionString"))
		}
		// SHARDING_FILTER over FETCH over the IXSCAN (orphans_test.go).
		ix := shards[0].Lookup("winningPlan", "inputStage", "inputStage")
		if ix.Document().Lookup("stage").StringValue() != "IXSCAN" || ix.Document().Lookup("indexName").StringValue() != "x_hashed" {
			t.Fatalf("shard plan %s", shards[0].Lookup("winningPlan"))
		}
		bounds := ix.Document().Lookup("indexBounds", "x").Array().Index(0).StringValue()
		if !strings.HasPrefix(bounds, "[") || strings.Contains(bounds, "42") {
			t.Fatalf("bounds %q are not in hash space", bounds)
		}
		if ex.Lookup("ok").Double() != 1 || ex.Lookup("serverInfo").Type != bson.TypeEmbeddedDocument {
			t.Fatalf("explain %s", ex)
		}
		if ex.Lookup("command", "find").StringValue() != "c" {
			t.Fatalf("command %s", ex.Lookup("command"))
		}
	})

	t.Run("scatter", func(t *testing.T) {
		winningShards(t, runExplain(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "x", Value: bson.D{{Key: "$gt", Value: 3}}}}}}), "SHARD_MERGE", 2)
		winningShards(t, runExplain(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "sort", Value: bson.D{{Key: "g", Value: 1}}}}), "SHARD_MERGE_SORT", 2)
		winningShards(t, runExplain(t, db, bson.D{{Key: "count", Value: "c"}, {Key: "query", Value: bson.D{{Key: "g", Value: 1}}}}), "SHARD_MERGE", 2)
		winningShards(t, runExplain(t, db, bson.D{{Key: "distinct", Value: "c"}, {Key: "key", Value: "g"}, {Key: "query", Value: bson.D{{Key: "x", Value: 7}}}}), "SINGLE_SHARD", 1)
	})

	t.Run("executionStats", func(t *testing.T) {
		raw, err := db.RunCommand(ctxT(t), bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "g", Value: 1}}}}},
			{Key: "verbosity", Value: "executionStats"}}).Raw()
		must(t, err, "explain executionStats")
		es := raw.Lookup("executionStats").Document()
		if es.Lookup("nReturned").AsInt64() != 20 || es.Lookup("totalDocsExamined").AsInt64() != 100 {
			t.Fatalf("executionStats %s", es)
		}
		vals, err := es.Lookup("executionStages", "shards").Array().Values()
		must(t, err, "executionStages.shards")
		var sum int64
		for _, v := range vals {
			sum += v.Document().Lookup("executionStages", "nReturned").AsInt64()
		}
		if len(vals) != 2 || sum != 20 || es.Lookup("executionStages", "stage").StringValue() != "SHARD_MERGE" {
			t.Fatalf("executionStages %s", es.Lookup("executionStages"))
		}
	})

	t.Run("writes", func(t *testing.T) {
		del := bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "x", Value: 7}}}, {Key: "limit", Value: 1}}}}}
		winningShards(t, runExplain(t, db, del), "SINGLE_SHARD", 1)
		upd := bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "g", Value: 2}}},
			{Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 1}}}}}, {Key: "multi", Value: true}}}}}
		winningShards(t, runExplain(t, db, upd), "SHARD_WRITE", 2)
		// Explain runs nothing.
		if n, err := db.Collection("c").CountDocuments(ctxT(t), bson.D{{Key: "y", Value: 1}}); err != nil || n != 0 {
			t.Fatalf("explain of an update changed %d documents (%v)", n, err)
		}
		if n, err := db.Collection("c").CountDocuments(ctxT(t), bson.D{}); err != nil || n != 100 {
			t.Fatalf("explain of a delete left %d documents (%v)", n, err)
		}
	})

	t.Run("aggregate", func(t *testing.T) {
		one := runExplain(t, db, bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "x", Value: 3}}}}}}, {Key: "cursor", Value: bson.D{}}})
		if one.Lookup("splitPipeline").Type != bson.TypeNull || countKeys(t, one.Lookup("shards").Document()) != 1 {
			t.Fatalf("single-shard aggregate explain %s", one)
		}
		group := bson.A{bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$g"}}}}}
		all := runExplain(t, db, bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: group}, {Key: "cursor", Value: bson.D{}}})
		checkSplit(t, all)
		// The {aggregate, explain: true} form answers alike.
		inline, err := db.RunCommand(ctxT(t), bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: group}, {Key: "explain", Value: true}}).Raw()
		must(t, err, "aggregate with explain: true")
		checkSplit(t, inline)
	})

	t.Run("errors and unsharded", func(t *testing.T) {
		err := db.RunCommand(ctxT(t), bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "x", Value: bson.D{{Key: "$nope", Value: 1}}}}}}}}).Err()
		ce := checkCode(t, err, 2, "explain of a bad filter")
		if !strings.Contains(ce.Message, "Explain command on shard") {
			t.Fatalf("message %q", ce.Message)
		}
		_, err = db.Collection("u").InsertOne(ctxT(t), bson.D{{Key: "a", Value: 1}})
		must(t, err, "insert hx.u")
		ex := runExplain(t, db, bson.D{{Key: "find", Value: "u"}, {Key: "filter", Value: bson.D{{Key: "a", Value: 1}}}})
		if ex.Lookup("queryPlanner", "winningPlan", "stage").StringValue() == "" {
			t.Fatalf("unsharded explain %s", ex)
		}
	})

	t.Run("stale router", func(t *testing.T) { testStaleExplain(t, tp, db, admin) })

	t.Run("non-empty collection needs the hashed index", func(t *testing.T) {
		r := db.Collection("r")
		_, err := r.InsertMany(ctxT(t), []any{bson.D{{Key: "x", Value: 1}}, bson.D{{Key: "x", Value: 2}}})
		must(t, err, "insert hx.r")
		_, err = r.Indexes().CreateOne(ctxT(t), mongo.IndexModel{Keys: bson.D{{Key: "x", Value: 1}}})
		must(t, err, "createIndex x_1")
		shardR := bson.D{{Key: "shardCollection", Value: "hx.r"}, {Key: "key", Value: bson.D{{Key: "x", Value: "hashed"}}}}
		checkCode(t, admin.RunCommand(ctxT(t), shardR).Err(), 72, "hashed key over an ascending index")
		_, err = r.Indexes().CreateOne(ctxT(t), mongo.IndexModel{Keys: bson.D{{Key: "x", Value: "hashed"}}})
		must(t, err, "createIndex x_hashed")
		must(t, admin.RunCommand(ctxT(t), shardR).Err(), "shardCollection hx.r with its hashed index")
	})
}

// testStaleExplain: a second router caches hx.s sharded on x; hx.s is
// then dropped and sharded on y through the first. The second router's
// explain of a find by y is first sent with the old versions, which the
// shards refuse (StaleConfig), and then targets by y: one shard.
func testStaleExplain(t *testing.T, tp *topo, db *mongo.Database, admin *mongo.Database) {
	shardS := func(field string) {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "hx.s"}, {Key: "key", Value: bson.D{{Key: field, Value: "hashed"}}}}).Err(), "shard hx.s on %s", field)
	}
	shardS("x")
	r2 := harness.StartRouter(t, "cfg/"+tp.cfg.Members()[0].Host)
	cl2, err := mongo.Connect(options.Client().ApplyURI(r2.URI()))
	must(t, err, "connect to the second router")
	t.Cleanup(func() { _ = cl2.Disconnect(context.Background()) })
	db2 := cl2.Database("hx")
	winningShards(t, runExplain(t, db2, bson.D{{Key: "find", Value: "s"}, {Key: "filter", Value: bson.D{{Key: "x", Value: 1}}}}), "SINGLE_SHARD", 1)
	must(t, db.Collection("s").Drop(ctxT(t)), "drop hx.s")
	shardS("y")
	winningShards(t, runExplain(t, db2, bson.D{{Key: "find", Value: "s"}, {Key: "filter", Value: bson.D{{Key: "y", Value: 1}}}}), "SINGLE_SHARD", 1)
}

// runExplain runs {explain: cmd, verbosity: queryPlanner} through the router.
func runExplain(t *testing.T, db *mongo.Database, cmd bson.D) bson.Raw {
	t.Helper()
	raw, err := db.RunCommand(ctxT(t), bson.D{{Key: "explain", Value: cmd}, {Key: "verbosity", Value: "queryPlanner"}}).Raw()
	must(t, err, "explain %v", cmd)
	return raw
}

// winningShards checks the router's winning plan stage and shard count and
// returns the per-shard entries.
func winningShards(t *testing.T, ex bson.Raw, stage string, n int) []bson.Raw {
	t.Helper()
	wp := ex.Lookup("queryPlanner", "winningPlan").Document()
	if got := wp.Lookup("stage").StringValue(); got != stage {
		t.Fatalf("stage %q, want %q: %s", got, stage, ex)
	}
	if v := ex.Lookup("queryPlanner", "mongosPlannerVersion"); v.Type == 0 {
		t.Fatalf("no mongosPlannerVersion: %s", ex)
	}
	vals, err := wp.Lookup("shards").Array().Values()
	must(t, err, "shards")
	if len(vals) != n {
		t.Fatalf("%d shards, want %d: %s", len(vals), n, ex)
	}
	out := make([]bson.Raw, len(vals))
	for i, v := range vals {
		out[i] = v.Document()
		if out[i].Lookup("shardName").StringValue() == "" || out[i].Lookup("winningPlan").Type != bson.TypeEmbeddedDocument {
			t.Fatalf("shard entry %s", out[i])
		}
	}
	return out
}

// checkSplit checks a scattered $group's explain: two shards, each
// running the shards part, and the merger part reading their cursors.
func checkSplit(t *testing.T, ex bson.Raw) {
	t.Helper()
	if ex.Lookup("mergeType").StringValue() != "mongos" || countKeys(t, ex.Lookup("shards").Document()) != 2 {
		t.Fatalf("scattered aggregate explain %s", ex)
	}
	merger, err := ex.Lookup("splitPipeline", "mergerPart").Array().Values()
	must(t, err, "mergerPart")
	shardsPart, err := ex.Lookup("splitPipeline", "shardsPart").Array().Values()
	must(t, err, "shardsPart")
	if len(merger) < 2 || merger[0].Document().Lookup("$mergeCursors").Type == 0 || len(shardsPart) != 1 {
		t.Fatalf("splitPipeline %s", ex.Lookup("splitPipeline"))
	}
}

func countKeys(t *testing.T, d bson.Raw) int {
	t.Helper()
	els, err := d.Elements()
	must(t, err, "elements")
	return len(els)
}

// indexKey returns the key pattern of coll's index name, failing when
// there is none.
func indexKey(t *testing.T, coll *mongo.Collection, name string) bson.D {
	t.Helper()
	specs, err := coll.Indexes().ListSpecifications(ctxT(t))
	must(t, err, "listIndexes")
	for _, s := range specs {
		if s.Name == name {
			var key bson.D
			must(t, bson.Unmarshal(s.KeysDocument, &key), "index key")
			return key
		}
	}
	t.Fatalf("no index %s among %+v", name, specs)
	return nil
}

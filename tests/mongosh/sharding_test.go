package mongosh

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestShardingHelpers drives a cluster with mongosh's sh.* helpers and
// checks what sh.status(), db.printShardingStatus() and
// getShardDistribution() report against the config metadata and the
// shards' own document counts (read with the Go driver).
func TestShardingHelpers(t *testing.T) {
	shell := mongoshPath(t)
	tp := startTopo(t)
	uri := tp.router.URI()

	// Before any shard: the router wrote config.version and its
	// config.mongos entry at start (its first report is asynchronous:
	// wait for it, boundedly), so sh.status() works on an empty cluster.
	empty := obj(t, shellJSON(t, shell, uri, `
const cfg = db.getSiblingDB("config");
for (let i = 0; i < 100 && (cfg.getCollection("version").findOne() === null || cfg.getCollection("mongos").findOne() === null); i++) sleep(100);
emit(sh.status().value);`), "sh.status() before addShard")
	if len(arr(t, empty["shards"], "shards")) != 0 || len(arr(t, empty["active mongoses"], "active mongoses")) != 1 {
		t.Fatalf("sh.status() before addShard: %v", empty)
	}

	setup := shellJSON(t, shell, uri, fmt.Sprintf(`
const add0 = sh.addShard(%q), add1 = sh.addShard(%q);
const en = sh.enableSharding("app", "sh0");
const r = sh.shardCollection("app.ranged", {k: 1});
const h = sh.shardCollection("app.hashed", {h: "hashed"});
const app = db.getSiblingDB("app");
app.ranged.insertMany(Array.from({length: 200}, (_, i) => ({k: i})));
app.hashed.insertMany(Array.from({length: 100}, (_, i) => ({h: i})));
app.plain.insertOne({p: 1});
const at = sh.splitAt("app.ranged", {k: 100});
const find = sh.splitFind("app.ranged", {k: 10});
emit({added: [add0.shardAdded, add1.shardAdded], oks: [en.ok, r.ok, h.ok, at.ok, find.ok]});
`, seed(tp.shards["sh0"]), seed(tp.shards["sh1"])))
	s := obj(t, setup, "setup")
	if got := fmt.Sprint(s["added"]); got != "[sh0 sh1]" {
		t.Fatalf("addShard's shardAdded: %s", got)
	}
	if got := fmt.Sprint(s["oks"]); got != "[1 1 1 1 1]" {
		t.Fatalf("enableSharding/shardCollection/splitAt/splitFind ok: %s", got)
	}

	router := routerClient(t, uri)
	status := obj(t, shellJSON(t, shell, uri, `emit(sh.status().value)`), "sh.status()")
	t.Run("status", func(t *testing.T) { checkStatus(t, tp, router, status) })
	t.Run("printShardingStatus", func(t *testing.T) {
		printed := obj(t, shellJSON(t, shell, uri+"app", `emit(db.printShardingStatus().value)`), "printShardingStatus")
		for _, k := range []string{"shardingVersion", "shards", "databases"} {
			if !reflect.DeepEqual(printed[k], status[k]) {
				t.Errorf("printShardingStatus %s = %v, sh.status() has %v", k, printed[k], status[k])
			}
		}
	})
	t.Run("statusText", func(t *testing.T) {
		out := runShell(t, shell, uri, `sh.status()`)
		for _, want := range []string{"shardingVersion", "active mongoses", "sh0/" + tp.shards["sh0"].Members()[0].Host, "app.ranged", "app.hashed", "'Currently running': 'no'"} {
			if !strings.Contains(out, want) {
				t.Errorf("sh.status() output lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("distribution", func(t *testing.T) {
		for _, coll := range []string{"hashed", "ranged"} {
			dist := obj(t, shellJSON(t, shell, uri+"app", `emit(db.`+coll+`.getShardDistribution().value)`), coll)
			checkDistribution(t, tp, router, coll, dist)
		}
	})
	t.Run("sizes", func(t *testing.T) {
		// db.coll.totalSize() and friends read $collStats' storageStats
		// summed over the shards.
		got := obj(t, shellJSON(t, shell, uri+"app", `
const h = db.hashed;
emit({total: h.totalSize(), data: h.dataSize(), index: h.totalIndexSize(), storage: h.storageSize()});`), "sizes")
		total, data, index := num(t, got["total"], "total"), num(t, got["data"], "data"), num(t, got["index"], "index")
		if data <= 0 || total != num(t, got["storage"], "storage")+index {
			t.Errorf("collection sizes %v", got)
		}
	})
	t.Run("balancerSwitch", func(t *testing.T) {
		got := obj(t, shellJSON(t, shell, uri, `
const stop = sh.stopBalancer();
const off = {state: sh.getBalancerState(), enabled: sh.status().value.balancer["Currently enabled"], mode: sh.isBalancerRunning().mode};
const start = sh.startBalancer();
emit({oks: [stop.ok, start.ok], off, on: sh.getBalancerState()});`), "balancer")
		if fmt.Sprint(got["oks"]) != "[1 1]" || fmt.Sprint(got["off"]) != "map[enabled:no mode:off state:false]" || got["on"] != true {
			t.Errorf("stopBalancer/startBalancer: %v", got)
		}
	})
	t.Run("moveChunk", func(t *testing.T) {
		got := obj(t, shellJSON(t, shell, uri, `
const mc = sh.moveChunk("app.ranged", {k: 150}, "sh1");
const mr = sh.moveRange("app.ranged", "sh1", {k: 5}, {k: 8});
emit({oks: [mc.ok, mr.ok], n: db.getSiblingDB("app").ranged.countDocuments({})});`), "moveChunk")
		if fmt.Sprint(got["oks"]) != "[1 1]" || num(t, got["n"], "n") != 200 {
			t.Fatalf("sh.moveChunk/sh.moveRange: %v", got)
		}
		for k, want := range map[int32]string{150: "sh1", 6: "sh1", 4: "sh0", 8: "sh0", 99: "sh0"} {
			if owner := rangedOwner(t, router, k); owner != want {
				t.Errorf("after the moves k=%d is on %s, want %s", k, owner, want)
			}
		}
	})
	t.Run("distributionUnsharded", func(t *testing.T) {
		got := obj(t, shellJSON(t, shell, uri+"app", `
try { db.plain.getShardDistribution(); emit({err: ""}) } catch (e) { emit({err: e.message}) }`), "plain")
		if msg, _ := got["err"].(string); !strings.Contains(msg, "is not sharded") {
			t.Fatalf("getShardDistribution of an unsharded collection: %q", msg)
		}
	})
}

// checkStatus compares sh.status()'s report with config.* read directly.
func checkStatus(t *testing.T, tp *topo, router *mongo.Client, st map[string]any) {
	shards := arr(t, st["shards"], "shards")
	if len(shards) != 2 {
		t.Fatalf("shards: %v", shards)
	}
	for i, name := range []string{"sh0", "sh1"} {
		sh := obj(t, shards[i], "shard")
		if sh["_id"] != name || sh["host"] != seed(tp.shards[name]) {
			t.Errorf("shard %d = %v, want %s at %s", i, sh, name, seed(tp.shards[name]))
		}
	}
	mongoses := arr(t, st["active mongoses"], "active mongoses")
	if len(mongoses) != 1 || len(obj(t, mongoses[0], "mongos versions")) != 1 {
		t.Errorf("active mongoses: %v", mongoses)
	}
	if bal := obj(t, st["balancer"], "balancer"); bal["Currently running"] != "no" {
		t.Errorf("balancer: %v", bal)
	}
	colls := appCollections(t, st)
	ranged := obj(t, colls["app.ranged"], "app.ranged")
	if fmt.Sprint(ranged["shardKey"]) != "map[k:1]" {
		t.Errorf("app.ranged shardKey: %v", ranged["shardKey"])
	}
	checkChunkMetadata(t, router, "app.ranged", ranged)
	// splitAt {k: 100}, then splitFind {k: 10} at the median key of the
	// chunk [MinKey, 100), which holds k 0..99.
	mins := []string{}
	for _, c := range arr(t, ranged["chunks"], "app.ranged chunks") {
		mins = append(mins, fmt.Sprint(obj(t, obj(t, c, "chunk")["min"], "min")["k"]))
	}
	if got := strings.Join(mins, " "); got != "map[$minKey:1] 50 100" {
		t.Errorf("app.ranged chunk mins: %s", got)
	}
	hashed := obj(t, colls["app.hashed"], "app.hashed")
	if fmt.Sprint(hashed["shardKey"]) != "map[h:hashed]" {
		t.Errorf("app.hashed shardKey: %v", hashed["shardKey"])
	}
	checkChunkMetadata(t, router, "app.hashed", hashed)
	checkDataDistribution(t, tp, st)
}

// checkDataDistribution compares sh.status()'s shardedDataDistribution
// for app.hashed with the shards' own counts.
func checkDataDistribution(t *testing.T, tp *topo, st map[string]any) {
	for _, d := range arr(t, st["shardedDataDistribution"], "shardedDataDistribution") {
		e := obj(t, d, "shardedDataDistribution entry")
		if e["ns"] != "app.hashed" {
			continue
		}
		got := map[string]int64{}
		for _, s := range arr(t, e["shards"], "shards") {
			sd := obj(t, s, "shard entry")
			got[fmt.Sprint(sd["shardName"])] = num(t, sd["numOwnedDocuments"], "numOwnedDocuments")
		}
		want := map[string]int64{}
		for name := range tp.shards {
			n, err := tp.shardClient(t, name).Database("app").Collection("hashed").CountDocuments(ctxT(t), bson.D{})
			if err != nil {
				t.Fatal(err)
			}
			want[name] = n
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("shardedDataDistribution app.hashed %v, the shards hold %v", got, want)
		}
		return
	}
	t.Errorf("no app.hashed in shardedDataDistribution: %v", st["shardedDataDistribution"])
}

// appCollections finds database app in sh.status()'s databases, checks
// its primary and returns its collections.
func appCollections(t *testing.T, st map[string]any) map[string]any {
	for _, d := range arr(t, st["databases"], "databases") {
		entry := obj(t, d, "database entry")
		db := obj(t, entry["database"], "database")
		if db["_id"] == "app" {
			if db["primary"] != "sh0" {
				t.Errorf("app's primary: %v", db["primary"])
			}
			return obj(t, entry["collections"], "collections")
		}
	}
	t.Fatalf("no database app in %v", st["databases"])
	return nil
}

// checkChunkMetadata compares chunkMetadata with config.chunks' counts.
func checkChunkMetadata(t *testing.T, router *mongo.Client, ns string, coll map[string]any) {
	t.Helper()
	want := chunkCounts(t, router, ns)
	got := map[string]int64{}
	for _, m := range arr(t, coll["chunkMetadata"], ns+" chunkMetadata") {
		e := obj(t, m, "chunkMetadata entry")
		got[fmt.Sprint(e["shard"])] = num(t, e["nChunks"], "nChunks")
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s chunkMetadata %v, config.chunks has %v", ns, got, want)
	}
	var total int64
	for _, n := range want {
		total += n
	}
	if n := int64(len(arr(t, coll["chunks"], ns+" chunks"))); n != total {
		t.Errorf("%s: %d chunks listed, config.chunks has %d", ns, n, total)
	}
}

// checkDistribution compares getShardDistribution's per-shard documents
// and chunks with each shard's own count and config.chunks.
func checkDistribution(t *testing.T, tp *topo, router *mongo.Client, coll string, dist map[string]any) {
	t.Helper()
	chunks := chunkCounts(t, router, "app."+coll)
	var docs int64
	for name, sh := range tp.shards {
		n, err := tp.shardClient(t, name).Database("app").Collection(coll).CountDocuments(ctxT(t), bson.D{})
		if err != nil {
			t.Fatal(err)
		}
		key := "Shard " + name + " at " + seed(sh)
		entry, listed := dist[key]
		if chunks[name] == 0 {
			if listed {
				t.Errorf("%s: %s owns no chunk but is listed: %v", coll, name, entry)
			}
			continue
		}
		e := obj(t, entry, coll+" "+key)
		if got := num(t, e["docs"], "docs"); got != n {
			t.Errorf("%s on %s: getShardDistribution says %d docs, the shard holds %d", coll, name, got, n)
		}
		if got := num(t, e["chunks"], "chunks"); got != chunks[name] {
			t.Errorf("%s on %s: %d chunks, config.chunks has %d", coll, name, got, chunks[name])
		}
		docs += n
	}
	totals := obj(t, dist["Totals"], coll+" Totals")
	if got := num(t, totals["docs"], "Totals docs"); got != docs || docs == 0 {
		t.Errorf("%s Totals docs %d, the shards hold %d", coll, got, docs)
	}
}

// chunkCounts counts config.chunks per shard for ns, read through the router.
func chunkCounts(t *testing.T, router *mongo.Client, ns string) map[string]int64 {
	t.Helper()
	cfg := router.Database("config")
	var entry struct {
		UUID bson.Binary `bson:"uuid"`
	}
	if err := cfg.Collection("collections").FindOne(ctxT(t), bson.D{{Key: "_id", Value: ns}}).Decode(&entry); err != nil {
		t.Fatalf("config.collections %s: %v", ns, err)
	}
	cur, err := cfg.Collection("chunks").Find(ctxT(t), bson.D{{Key: "uuid", Value: entry.UUID}})
	if err != nil {
		t.Fatal(err)
	}
	var chunks []struct {
		Shard string `bson:"shard"`
	}
	if err := cur.All(ctxT(t), &chunks); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, c := range chunks {
		out[c.Shard]++
	}
	return out
}

func routerClient(t *testing.T, uri string) *mongo.Client {
	t.Helper()
	cl, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Disconnect(ctxT(t)) })
	return cl
}

// rangedOwner is the shard of app.ranged's chunk holding k, from
// config.chunks through the router.
func rangedOwner(t *testing.T, router *mongo.Client, k int32) string {
	t.Helper()
	var coll bson.M
	if err := router.Database("config").Collection("collections").FindOne(t.Context(), bson.D{{Key: "_id", Value: "app.ranged"}}).Decode(&coll); err != nil {
		t.Fatal(err)
	}
	cur, err := router.Database("config").Collection("chunks").Find(t.Context(), bson.D{{Key: "uuid", Value: coll["uuid"]}})
	if err != nil {
		t.Fatal(err)
	}
	var chunks []bson.Raw
	if err := cur.All(t.Context(), &chunks); err != nil {
		t.Fatal(err)
	}
	le := func(b bson.RawValue) bool { // the bound {k: b} <= k
		switch b.Type {
		case bson.TypeMinKey:
			return true
		case bson.TypeMaxKey:
			return false
		}
		n, _ := b.AsInt64OK()
		return n <= int64(k)
	}
	for _, c := range chunks {
		if le(c.Lookup("min", "k")) && !le(c.Lookup("max", "k")) {
			return c.Lookup("shard").StringValue()
		}
	}
	t.Fatalf("no chunk of app.ranged holds k=%d", k)
	return ""
}

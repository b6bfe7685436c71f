package sharding

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// TestShardInfo covers what the shell's sharding helpers read through a
// router: getShardVersion (collection and database forms, fullMetadata,
// mongos' errors), $collStats fanned out to the shards with each shard's
// name, config.mongos kept by the router and balancerStatus.
func TestShardInfo(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "enableSharding", Value: "gv"}, {Key: "primaryShard", Value: "sh0"}}).Err(), "enableSharding")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "gv.c"}, {Key: "key", Value: bson.D{{Key: "x", Value: 1}}}}).Err(), "shardCollection gv.c")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "split", Value: "gv.c"}, {Key: "middle", Value: bson.D{{Key: "x", Value: 50}}}}).Err(), "split")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "gv.h"}, {Key: "key", Value: bson.D{{Key: "h", Value: "hashed"}}}}).Err(), "shardCollection gv.h")
	docs := make([]any, 100)
	for i := range docs {
		docs[i] = bson.D{{Key: "h", Value: i}}
	}
	_, err := cl.Database("gv").Collection("h").InsertMany(ctxT(t), docs)
	must(t, err, "insert gv.h")
	_, err = cl.Database("gv").Collection("plain").InsertOne(ctxT(t), bson.D{{Key: "p", Value: 1}})
	must(t, err, "insert gv.plain")

	t.Run("getShardVersion", func(t *testing.T) { checkGetShardVersion(t, cl) })
	t.Run("getShardVersionErrors", func(t *testing.T) { checkGetShardVersionErrors(t, cl) })
	t.Run("collStatsSharded", func(t *testing.T) { checkCollStatsSharded(t, tp, cl) })
	t.Run("collStatsUnsharded", func(t *testing.T) { checkCollStatsUnsharded(t, tp, cl) })
	t.Run("collStatsOnShard", func(t *testing.T) { checkCollStatsOnShard(t, tp) })
	t.Run("mongosAndBalancer", func(t *testing.T) { checkMongosEntry(t, tp, cl) })
	t.Run("shardedDataDistribution", func(t *testing.T) { checkDataDistribution(t, tp, cl) })
	t.Run("collStatsCommand", func(t *testing.T) { checkCollStatsCommand(t, tp, cl) })
	t.Run("statsInTransaction", func(t *testing.T) { checkStatsInTransaction(t, cl) })
}

// checkStatsInTransaction: $collStats and collStats are refused inside a
// transaction (OperationNotSupportedInTransaction).
func checkStatsInTransaction(t *testing.T, cl *mongo.Client) {
	sess, err := cl.StartSession()
	must(t, err, "session")
	defer sess.EndSession(ctxT(t))
	must(t, sess.StartTransaction(), "startTransaction")
	defer func() { _ = sess.AbortTransaction(ctxT(t)) }()
	ctx := mongo.NewSessionContext(ctxT(t), sess)
	_, err = cl.Database("gv").Collection("h").Aggregate(ctx, bson.A{bson.D{{Key: "$collStats", Value: bson.D{}}}})
	if code := infoErrCode(err); code != 263 {
		t.Errorf("$collStats in a transaction: %v, want code 263", err)
	}
	err = cl.Database("gv").RunCommand(ctx, bson.D{{Key: "collStats", Value: "h"}}).Err()
	if code := infoErrCode(err); code != 263 {
		t.Errorf("collStats in a transaction: %v, want code 263", err)
	}
}

// checkCollStatsCommand: the collStats command sums the owning shards'
// answers (mongos' shape), or names the primary of an unsharded one.
func checkCollStatsCommand(t *testing.T, tp *topo, cl *mongo.Client) {
	var res struct {
		Sharded bool              `bson:"sharded"`
		Count   int64             `bson:"count"`
		Size    int64             `bson:"size"`
		NChunks int32             `bson:"nchunks"`
		Scale   int32             `bson:"scaleFactor"`
		Shards  map[string]bson.M `bson:"shards"`
	}
	db := cl.Database("gv")
	must(t, db.RunCommand(ctxT(t), bson.D{{Key: "collStats", Value: "h"}}).Decode(&res), "collStats gv.h")
	if !res.Sharded || res.Count != 100 || res.NChunks != 4 || len(res.Shards) != 2 || res.Size <= 0 {
		t.Errorf("collStats gv.h: %+v", res)
	}
	var sum int64
	for name, st := range res.Shards {
		want, err := tp.shardClient(t, name).Database("gv").Collection("h").CountDocuments(ctxT(t), bson.D{})
		must(t, err, "count on %s", name)
		if infoInt(st["count"]) != want {
			t.Errorf("collStats shards.%s.count = %v, the shard holds %d", name, st["count"], want)
		}
		sum += infoInt(st["size"])
	}
	if sum != res.Size {
		t.Errorf("collStats size %d, the shards' sizes add up to %d", res.Size, sum)
	}
	var scaled struct {
		Size  int64 `bson:"size"`
		Scale int32 `bson:"scaleFactor"`
	}
	must(t, db.RunCommand(ctxT(t), bson.D{{Key: "collStats", Value: "h"}, {Key: "scale", Value: 10}}).Decode(&scaled), "collStats scale 10")
	if scaled.Scale != 10 || scaled.Size != res.Size/10 {
		t.Errorf("collStats scale 10: %+v, unscaled size %d", scaled, res.Size)
	}
	var plain bson.M
	must(t, db.RunCommand(ctxT(t), bson.D{{Key: "collStats", Value: "plain"}}).Decode(&plain), "collStats gv.plain")
	if plain["sharded"] != false || plain["primary"] != "sh0" || infoInt(plain["count"]) != 1 {
		t.Errorf("collStats gv.plain: %v", plain)
	}
	err := db.RunCommand(ctxT(t), bson.D{{Key: "collStats", Value: "h"}, {Key: "scale", Value: 0}}).Err()
	if code := infoErrCode(err); code != 4390200 {
		t.Errorf("collStats scale 0: %v, want code 4390200", err)
	}
}

// checkDataDistribution: $shardedDataDistribution lists the sharded
// collections with each owning shard's document count, only on admin.
func checkDataDistribution(t *testing.T, tp *topo, cl *mongo.Client) {
	cur, err := cl.Database("admin").Aggregate(ctxT(t), bson.A{
		bson.D{{Key: "$shardedDataDistribution", Value: bson.D{}}},
		bson.D{{Key: "$match", Value: bson.D{{Key: "ns", Value: bson.D{{Key: "$in", Value: bson.A{"gv.c", "gv.h", "gv.plain"}}}}}}},
	})
	must(t, err, "$shardedDataDistribution")
	var out []struct {
		NS     string `bson:"ns"`
		Shards []struct {
			Name  string `bson:"shardName"`
			Owned int64  `bson:"numOwnedDocuments"`
		} `bson:"shards"`
	}
	must(t, cur.All(ctxT(t), &out), "$shardedDataDistribution")
	if len(out) != 2 || out[0].NS != "gv.c" || out[1].NS != "gv.h" {
		t.Fatalf("$shardedDataDistribution: %+v, want gv.c and gv.h", out)
	}
	if len(out[1].Shards) != 2 {
		t.Fatalf("gv.h on %+v, want both shards", out[1].Shards)
	}
	for _, s := range out[1].Shards {
		want, err := tp.shardClient(t, s.Name).Database("gv").Collection("h").CountDocuments(ctxT(t), bson.D{})
		must(t, err, "count on %s", s.Name)
		if s.Owned != want {
			t.Errorf("gv.h on %s: numOwnedDocuments %d, the shard holds %d", s.Name, s.Owned, want)
		}
	}
	_, err = cl.Database("gv").Aggregate(ctxT(t), bson.A{bson.D{{Key: "$shardedDataDistribution", Value: bson.D{}}}})
	if code := infoErrCode(err); code != 6789100 {
		t.Errorf("$shardedDataDistribution on gv: %v, want code 6789100", err)
	}
}

// checkGetShardVersion compares getShardVersion with config.collections
// and config.chunks.
func checkGetShardVersion(t *testing.T, cl *mongo.Client) {
	cfg := cl.Database("config")
	var coll struct {
		Epoch     bson.ObjectID  `bson:"lastmodEpoch"`
		Timestamp bson.Timestamp `bson:"timestamp"`
		UUID      bson.Binary    `bson:"uuid"`
	}
	must(t, cfg.Collection("collections").FindOne(ctxT(t), bson.D{{Key: "_id", Value: "gv.c"}}).Decode(&coll), "config.collections")
	cur, err := cfg.Collection("chunks").Find(ctxT(t), bson.D{{Key: "uuid", Value: coll.UUID}})
	must(t, err, "config.chunks")
	var chunks []chunkRow
	must(t, cur.All(ctxT(t), &chunks), "config.chunks")
	var newest bson.Timestamp
	for _, c := range chunks {
		if c.Lastmod.After(newest) {
			newest = c.Lastmod
		}
	}
	var res struct {
		Version   bson.Timestamp `bson:"version"`
		Epoch     bson.ObjectID  `bson:"versionEpoch"`
		Timestamp bson.Timestamp `bson:"versionTimestamp"`
		Chunks    []bson.A       `bson:"chunks"`
	}
	must(t, cl.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "getShardVersion", Value: "gv.c"}, {Key: "fullMetadata", Value: true}}).Decode(&res), "getShardVersion")
	if res.Version != newest || res.Epoch != coll.Epoch || res.Timestamp != coll.Timestamp {
		t.Errorf("getShardVersion = %v/%v/%v, config has %v/%v/%v", res.Version, res.Epoch, res.Timestamp, newest, coll.Epoch, coll.Timestamp)
	}
	if len(res.Chunks) != len(chunks) || len(chunks) != 2 {
		t.Fatalf("fullMetadata chunks %v, config.chunks %v", res.Chunks, chunks)
	}
	var mins []any
	for _, pair := range res.Chunks {
		mins = append(mins, bound(pair[0].(bson.D)))
	}
	if !slices.Equal(mins, []any{"min", 50}) {
		t.Errorf("fullMetadata chunk mins %v, want [min 50]", mins)
	}

	var db struct {
		Primary string `bson:"primary"`
		Version bson.D `bson:"version"`
	}
	must(t, cfg.Collection("databases").FindOne(ctxT(t), bson.D{{Key: "_id", Value: "gv"}}).Decode(&db), "config.databases")
	var dres struct {
		Primary string `bson:"primaryShard"`
		Version bson.D `bson:"version"`
	}
	must(t, cl.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "getShardVersion", Value: "gv"}}).Decode(&dres), "getShardVersion gv")
	if dres.Primary != db.Primary || len(dres.Version) == 0 || extJSON(dres.Version) != extJSON(db.Version) {
		t.Errorf("getShardVersion gv = %v %v, config.databases has %v %v", dres.Primary, dres.Version, db.Primary, db.Version)
	}
}

func checkGetShardVersionErrors(t *testing.T, cl *mongo.Client) {
	for _, tc := range []struct {
		db   string
		arg  any
		code int32
	}{
		{"admin", "gv.plain", 118}, // NamespaceNotSharded
		{"admin", "gv.none", 118},
		{"admin", "nodb", 26},  // NamespaceNotFound
		{"admin", int32(5), 2}, // BadValue
		{"gv", "gv.c", 13},     // Unauthorized: admin only
	} {
		err := cl.Database(tc.db).RunCommand(ctxT(t), bson.D{{Key: "getShardVersion", Value: tc.arg}}).Err()
		if code := infoErrCode(err); code != tc.code {
			t.Errorf("getShardVersion %v on %s: %v, want code %d", tc.arg, tc.db, err, tc.code)
		}
	}
}

// checkCollStatsSharded: one document per shard owning chunks of gv.h,
// each with its shard name and the shard's own count.
func checkCollStatsSharded(t *testing.T, tp *topo, cl *mongo.Client) {
	coll := cl.Database("gv").Collection("h")
	cur, err := coll.Aggregate(ctxT(t), bson.A{bson.D{{Key: "$collStats", Value: bson.D{{Key: "storageStats", Value: bson.D{}}, {Key: "count", Value: bson.D{}}}}}})
	must(t, err, "$collStats")
	var out []bson.M
	must(t, cur.All(ctxT(t), &out), "$collStats")
	if len(out) != 2 {
		t.Fatalf("$collStats on a collection with chunks on 2 shards: %v", out)
	}
	var total int64
	for _, d := range out {
		shard, _ := d["shard"].(string)
		host, _ := d["host"].(string) // hostname:port, as a mongod reports itself
		if tp.shards[shard] == nil || d["ns"] != "gv.h" || !strings.HasSuffix(tp.shards[shard].Members()[0].Host, host[strings.LastIndex(host, ":"):]) {
			t.Errorf("$collStats document %v", d)
			continue
		}
		want, err := tp.shardClient(t, shard).Database("gv").Collection("h").CountDocuments(ctxT(t), bson.D{})
		must(t, err, "count on %s", shard)
		storage := asM(d["storageStats"])
		if infoInt(d["count"]) != want || infoInt(storage["count"]) != want || infoInt(storage["size"]) <= 0 {
			t.Errorf("%s: $collStats count %v, storageStats %v; the shard holds %d", shard, d["count"], storage, want)
		}
		total += want
	}
	if total != 100 {
		t.Errorf("the shards hold %d documents, 100 inserted", total)
	}
	// Stages after $collStats run at the router over the shards' documents.
	cur, err = coll.Aggregate(ctxT(t), bson.A{
		bson.D{{Key: "$collStats", Value: bson.D{{Key: "count", Value: bson.D{}}}}},
		bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "n", Value: bson.D{{Key: "$sum", Value: "$count"}}}, {Key: "shards", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
	})
	must(t, err, "$collStats + $group")
	var sum []bson.M
	must(t, cur.All(ctxT(t), &sum), "$collStats + $group")
	if len(sum) != 1 || infoInt(sum[0]["n"]) != 100 || infoInt(sum[0]["shards"]) != 2 {
		t.Errorf("$collStats + $group: %v", sum)
	}
}

func checkCollStatsUnsharded(t *testing.T, tp *topo, cl *mongo.Client) {
	cur, err := cl.Database("gv").Collection("plain").Aggregate(ctxT(t), bson.A{bson.D{{Key: "$collStats", Value: bson.D{{Key: "count", Value: bson.D{}}}}}})
	must(t, err, "$collStats unsharded")
	var out []bson.M
	must(t, cur.All(ctxT(t), &out), "$collStats unsharded")
	if len(out) != 1 || out[0]["shard"] != "sh0" || infoInt(out[0]["count"]) != 1 {
		t.Errorf("$collStats of an unsharded collection on sh0: %v", out)
	}
	_, err = cl.Database("gv").Collection("none").Aggregate(ctxT(t), bson.A{bson.D{{Key: "$collStats", Value: bson.D{{Key: "count", Value: bson.D{}}}}}})
	if code := infoErrCode(err); code != 26 {
		t.Errorf("$collStats count of a missing collection: %v, want NamespaceNotFound", err)
	}
}

// checkCollStatsOnShard: a data node answers $collStats itself (no shard
// field) and refuses bad specs as MongoDB does.
func checkCollStatsOnShard(t *testing.T, tp *topo) {
	coll := tp.shardClient(t, "sh0").Database("gv").Collection("plain")
	cur, err := coll.Aggregate(ctxT(t), bson.A{bson.D{{Key: "$collStats", Value: bson.D{{Key: "count", Value: bson.D{}}, {Key: "latencyStats", Value: bson.D{}}}}}})
	must(t, err, "$collStats on sh0")
	var out []bson.M
	must(t, cur.All(ctxT(t), &out), "$collStats on sh0")
	if len(out) != 1 || out[0]["ns"] != "gv.plain" || infoInt(out[0]["count"]) != 1 || out[0]["latencyStats"] == nil {
		t.Errorf("$collStats on a data node: %v", out)
	}
	if _, has := out[0]["shard"]; has {
		t.Errorf("a data node's $collStats has shard: %v", out[0])
	}
	for _, tc := range []struct {
		pipeline bson.A
		code     int32
	}{
		{bson.A{bson.D{{Key: "$match", Value: bson.D{}}}, bson.D{{Key: "$collStats", Value: bson.D{}}}}, 40602},
		{bson.A{bson.D{{Key: "$collStats", Value: bson.D{{Key: "bogus", Value: bson.D{}}}}}}, 40415},
		{bson.A{bson.D{{Key: "$collStats", Value: 1}}}, 14},
		{bson.A{bson.D{{Key: "$collStats", Value: bson.D{{Key: "storageStats", Value: bson.D{{Key: "scale", Value: 0}}}}}}}, 2},
	} {
		_, err := coll.Aggregate(ctxT(t), tc.pipeline)
		if code := infoErrCode(err); code != tc.code {
			t.Errorf("%v: %v, want code %d", tc.pipeline, err, tc.code)
		}
	}
}

// checkMongosEntry: the router keeps config.mongos (its first report is
// made at start) and its balancerStatus reports the balancer on by
// default (mode "full", as the issue asks).
func checkMongosEntry(t *testing.T, tp *topo, cl *mongo.Client) {
	cur, err := cl.Database("config").Collection("mongos").Find(ctxT(t), bson.D{})
	must(t, err, "config.mongos")
	var entries []struct {
		ID      string        `bson:"_id"`
		Ping    bson.DateTime `bson:"ping"`
		Up      int64         `bson:"up"`
		Waiting bool          `bson:"waiting"`
		Version string        `bson:"mongoVersion"`
		Created bson.DateTime `bson:"created"`
	}
	must(t, cur.All(ctxT(t), &entries), "config.mongos")
	if len(entries) != 1 {
		t.Fatalf("config.mongos: %+v, want this router's entry", entries)
	}
	e := entries[0]
	age := time.Since(e.Ping.Time())
	if age < 0 || age > time.Minute || !e.Waiting || e.Version == "" || e.Up < 0 || e.Created.Time().After(e.Ping.Time()) {
		t.Errorf("config.mongos entry %+v", e)
	}
	var bal bson.M
	must(t, cl.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "balancerStatus", Value: 1}}).Decode(&bal), "balancerStatus")
	if bal["mode"] != "full" || bal["numBalancerRounds"] == nil {
		t.Errorf("balancerStatus: %v", bal)
	}
	// balancerStop/balancerStart record the mode in config.settings.
	for _, tc := range []struct {
		cmd, mode string
		stopped   bool
	}{{"balancerStop", "off", true}, {"balancerStart", "full", false}} {
		must(t, cl.Database("admin").RunCommand(ctxT(t), bson.D{{Key: tc.cmd, Value: 1}}).Err(), "%s", tc.cmd)
		var doc struct {
			Mode    string `bson:"mode"`
			Stopped bool   `bson:"stopped"`
		}
		must(t, cl.Database("config").Collection("settings").FindOne(ctxT(t), bson.D{{Key: "_id", Value: "balancer"}}).Decode(&doc), "config.settings")
		if doc.Mode != tc.mode || doc.Stopped != tc.stopped {
			t.Errorf("after %s config.settings balancer = %+v", tc.cmd, doc)
		}
	}
}

func infoErrCode(err error) int32 {
	var ce mongo.CommandError
	if errors.As(err, &ce) {
		return ce.Code
	}
	var se mongo.ServerError
	if errors.As(err, &se) {
		for _, c := range []int{2, 13, 14, 26, 118, 263, 40415, 40602, 4390200, 6789100} {
			if se.HasErrorCode(c) {
				return int32(c)
			}
		}
	}
	return 0
}

func infoInt(v any) int64 {
	switch x := v.(type) {
	case int32:
		return int64(x)
	case int64:
		return x
	case float64:
		return int64(x)
	}
	return -1
}

func extJSON(d bson.D) string {
	b, _ := bson.MarshalExtJSON(d, true, false)
	return string(b)
}

// asM reads a nested document decoded into a bson.M (a bson.D in driver v2).
func asM(v any) bson.M {
	switch x := v.(type) {
	case bson.M:
		return x
	case bson.D:
		m := bson.M{}
		for _, e := range x {
			m[e.Key] = e.Value
		}
		return m
	}
	return bson.M{}
}

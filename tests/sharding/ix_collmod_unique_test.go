package sharding

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// ixCollMod runs collMod {index} on db.coll through cl.
func ixCollMod(ctx context.Context, db *mongo.Database, coll string, index bson.D, extra ...bson.E) (bson.M, error) {
	var res bson.M
	err := db.RunCommand(ctx, append(bson.D{{Key: "collMod", Value: coll}, {Key: "index", Value: index}}, extra...)).Decode(&res)
	return res, err
}

// ixViolationGroups is how many violations a 359 error lists (-1: not 359).
func ixViolationGroups(err error) int {
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 359 {
		return -1
	}
	v, lerr := ce.Raw.LookupErr("violations")
	if lerr != nil {
		return 0
	}
	var a bson.A
	_ = v.Unmarshal(&a)
	return len(a)
}

// ixIndexUnique reports a_k's unique and prepareUnique on shard sh.
func ixIndexUnique(t *testing.T, tp *topo, sh, db, coll string) (unique, prepare any) {
	t.Helper()
	cur, err := tp.shardClient(t, sh).Database(db).Collection(coll).Indexes().List(ctxT(t))
	must(t, err, "listIndexes on %s", sh)
	var specs []bson.M
	must(t, cur.All(ctxT(t), &specs), "decode")
	for _, s := range specs {
		if s["name"] == "k_1_a_1" {
			return s["unique"], s["prepareUnique"]
		}
	}
	t.Fatalf("no k_1_a_1 on %s: %v", sh, specs)
	return nil, nil
}

// TestIxRouterCollModUnique: through the router, an unsharded collection's
// index converts to unique as on a shard (prepareUnique, 359 with its
// violations, unique_new); on a sharded collection prepareUnique reaches
// every shard, and while any shard holds duplicates the conversion answers
// 359 with every shard's violations and converts no shard; once resolved
// it converts them all.
func TestIxRouterCollModUnique(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	ctx := ctxT(t)
	db := cl.Database("ixu")
	key := bson.D{{Key: "k", Value: 1}, {Key: "a", Value: 1}}
	byName := bson.D{{Key: "name", Value: "k_1_a_1"}}
	prepare := append(byName, bson.E{Key: "prepareUnique", Value: true})
	unique := append(byName, bson.E{Key: "unique", Value: true})

	plain := db.Collection("plain")
	_, err := plain.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: key})
	must(t, err, "create index")
	_, err = plain.InsertMany(ctx, []any{bson.D{{Key: "k", Value: 1}, {Key: "a", Value: 1}}, bson.D{{Key: "k", Value: 1}, {Key: "a", Value: 1}}})
	must(t, err, "insert")
	res, err := ixCollMod(ctx, db, "plain", prepare)
	if err != nil || res["prepareUnique_new"] != true {
		t.Fatalf("prepareUnique through the router = %v, %v", res, err)
	}
	if _, err = ixCollMod(ctx, db, "plain", unique, bson.E{Key: "dryRun", Value: true}); ixViolationGroups(err) != 1 {
		t.Fatalf("dryRun through the router = %v, want 359 with one violation", err)
	}
	_, err = plain.DeleteOne(ctx, bson.D{{Key: "k", Value: 1}})
	must(t, err, "delete")
	if res, err = ixCollMod(ctx, db, "plain", unique); err != nil || res["unique_new"] != true {
		t.Fatalf("unique through the router = %v, %v", res, err)
	}

	must(t, admin.RunCommand(ctx, bson.D{{Key: "shardCollection", Value: "ixu.s"}, {Key: "key", Value: bson.D{{Key: "k", Value: 1}}}}).Err(), "shardCollection")
	must(t, admin.RunCommand(ctx, bson.D{{Key: "split", Value: "ixu.s"}, {Key: "middle", Value: bson.D{{Key: "k", Value: 50}}}}).Err(), "split")
	var dbDoc struct {
		Primary string `bson:"primary"`
	}
	must(t, cl.Database("config").Collection("databases").FindOne(ctx, bson.D{{Key: "_id", Value: "ixu"}}).Decode(&dbDoc), "config.databases")
	other := map[string]string{"sh0": "sh1", "sh1": "sh0"}[dbDoc.Primary]
	must(t, admin.RunCommand(ctx, bson.D{{Key: "moveChunk", Value: "ixu.s"}, {Key: "find", Value: bson.D{{Key: "k", Value: 60}}}, {Key: "to", Value: other}}).Err(), "moveChunk")
	coll := db.Collection("s")
	_, err = coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: key})
	must(t, err, "create index on ixu.s")
	var docs []any
	for i, k := range []int32{10, 10, 60, 60, 70} {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "k", Value: k}, {Key: "a", Value: 1}})
	}
	_, err = coll.InsertMany(ctx, docs)
	must(t, err, "insert into ixu.s")
	if _, err = ixCollMod(ctx, db, "s", prepare); err != nil {
		t.Fatalf("prepareUnique on ixu.s: %v", err)
	}
	for _, sh := range []string{"sh0", "sh1"} {
		if _, p := ixIndexUnique(t, tp, sh, "ixu", "s"); p != true {
			t.Errorf("prepareUnique on %s = %v, want true", sh, p)
		}
	}
	_, err = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 9}, {Key: "k", Value: 70}, {Key: "a", Value: 1}})
	if code := ixWriteCode(err); code != 11000 {
		t.Errorf("duplicate insert on a prepareUnique sharded index = %v, want 11000", err)
	}
	if _, err = ixCollMod(ctx, db, "s", unique); ixViolationGroups(err) != 2 {
		t.Fatalf("convert with duplicates on both shards = %v, want 359 with two violations", err)
	}
	if _, err = ixCollMod(ctx, db, "s", unique, bson.E{Key: "dryRun", Value: true}); ixViolationGroups(err) != 2 {
		t.Fatalf("dryRun with duplicates on both shards = %v, want 359 with two violations", err)
	}
	_, err = coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: 1}})
	must(t, err, "delete _id 1")
	if _, err = ixCollMod(ctx, db, "s", unique); ixViolationGroups(err) != 1 {
		t.Fatalf("convert with duplicates on one shard = %v, want 359 with one violation", err)
	}
	for _, sh := range []string{"sh0", "sh1"} {
		if u, _ := ixIndexUnique(t, tp, sh, "ixu", "s"); u != nil {
			t.Errorf("a refused conversion converted %s (unique %v)", sh, u)
		}
	}
	_, err = coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: 3}})
	must(t, err, "delete _id 3")
	if res, err = ixCollMod(ctx, db, "s", unique); err != nil || res["unique_new"] != true {
		t.Fatalf("convert ixu.s = %v, %v", res, err)
	}
	for _, sh := range []string{"sh0", "sh1"} {
		if u, p := ixIndexUnique(t, tp, sh, "ixu", "s"); u != true || p != nil {
			t.Errorf("after conversion %s: unique %v prepareUnique %v", sh, u, p)
		}
	}
}

// ixWriteCode is the code of a write's first error (0 if none).
func ixWriteCode(err error) int {
	var we mongo.WriteException
	if errors.As(err, &we) && len(we.WriteErrors) > 0 {
		return we.WriteErrors[0].Code
	}
	var ce mongo.CommandError
	if errors.As(err, &ce) {
		return int(ce.Code)
	}
	return 0
}

// TestIxRouterTimeseriesWrites: an unsharded time-series collection's
// deletes and metaField updates go through the router unchanged.
func TestIxRouterTimeseriesWrites(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	must(t, cl.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards["sh0"])}}).Err(), "addShard")
	ctx := ctxT(t)
	db := cl.Database("ixts")
	must(t, db.RunCommand(ctx, bson.D{{Key: "create", Value: "m"}, {Key: "timeseries", Value: bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}}}}).Err(), "create")
	coll := db.Collection("m")
	now := bson.NewDateTimeFromTime(time.Now())
	var docs []any
	for i, k := range []string{"a", "a", "b"} {
		docs = append(docs, bson.D{{Key: "t", Value: now}, {Key: "m", Value: k}, {Key: "v", Value: i}})
	}
	_, err := coll.InsertMany(ctx, docs)
	must(t, err, "insert")
	if r, err := coll.UpdateMany(ctx, bson.D{{Key: "m", Value: "a"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "m", Value: "c"}}}}); err != nil || r.ModifiedCount != 2 {
		t.Fatalf("updateMany through the router = %+v, %v", r, err)
	}
	if r, err := coll.DeleteMany(ctx, bson.D{{Key: "v", Value: bson.D{{Key: "$lt", Value: 2}}}}); err != nil || r.DeletedCount != 2 {
		t.Fatalf("deleteMany through the router = %+v, %v", r, err)
	}
	if n, err := coll.CountDocuments(ctx, bson.D{{Key: "m", Value: "b"}}); err != nil || n != 1 {
		t.Fatalf("left: %d, %v", n, err)
	}
}

// TestIxRouterCompoundWildcard: a compound wildcard index is built on
// every shard of a sharded collection and queries through the router
// return what they return without it.
func TestIxRouterCompoundWildcard(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	ctx := ctxT(t)
	must(t, admin.RunCommand(ctx, bson.D{{Key: "shardCollection", Value: "ixcw.s"}, {Key: "key", Value: bson.D{{Key: "k", Value: "hashed"}}}}).Err(), "shardCollection")
	coll := cl.Database("ixcw").Collection("s")
	_, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "a", Value: 1}, {Key: "p.$**", Value: 1}}})
	must(t, err, "create compound wildcard index")
	var docs []any
	for i := int32(0); i < 60; i++ {
		docs = append(docs, bson.D{{Key: "k", Value: i}, {Key: "a", Value: i % 3}, {Key: "p", Value: bson.D{{Key: "x", Value: i % 5}}}})
	}
	_, err = coll.InsertMany(ctx, docs)
	must(t, err, "insert")
	for _, sh := range []string{"sh0", "sh1"} {
		cur, err := tp.shardClient(t, sh).Database("ixcw").Collection("s").Indexes().List(ctx)
		must(t, err, "listIndexes on %s", sh)
		var specs []bson.M
		must(t, cur.All(ctx, &specs), "decode")
		if len(specs) != 3 {
			t.Errorf("%s indexes: %v", sh, specs)
		}
	}
	n, err := coll.CountDocuments(ctx, bson.D{{Key: "a", Value: 1}, {Key: "p.x", Value: 2}})
	if err != nil || n != 4 {
		t.Fatalf("count {a: 1, p.x: 2} = %d, %v; want 4", n, err)
	}
}

package integration

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestClusteredCollection(t *testing.T) {
	_, c := startServer(t)
	ctx := tctx(t, 10*opTimeout)
	db := c.Database("clus")
	run := func(cmd bson.D) error { return db.RunCommand(ctx, cmd).Err() }
	spec := bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "unique", Value: true}, {Key: "name", Value: "by id"}}
	if err := run(bson.D{{Key: "create", Value: "cl"}, {Key: "clusteredIndex", Value: spec}}); err != nil {
		t.Fatalf("create clustered: %v", err)
	}
	coll := db.Collection("cl")
	if _, err := coll.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "_id", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}})
	wantCode(t, err, 11000, "duplicate _id in a clustered collection")
	specs, err := db.ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: "cl"}})
	if err != nil || len(specs) != 1 {
		t.Fatalf("listCollections: %v %v", specs, err)
	}
	ci := specs[0].Options.Lookup("clusteredIndex").Document()
	if ci.Lookup("name").StringValue() != "by id" || !ci.Lookup("unique").Boolean() || ci.Lookup("v").AsInt64() != 2 || specs[0].IDIndex.Name != "" {
		t.Errorf("listCollections options = %v, idIndex %v", specs[0].Options, specs[0].IDIndex)
	}
	cur, err := coll.Indexes().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var idx []bson.M
	if err := cur.All(ctx, &idx); err != nil || len(idx) != 1 || idx[0]["name"] != "by id" || idx[0]["clustered"] != true {
		t.Errorf("listIndexes = %v, %v", idx, err)
	}
	if n, _ := coll.CountDocuments(ctx, bson.D{}); n != 2 {
		t.Errorf("count = %d", n)
	}
	for _, bad := range []struct {
		opt  any
		code int32
	}{
		{bson.D{{Key: "key", Value: bson.D{{Key: "a", Value: 1}}}, {Key: "unique", Value: true}}, 197},
		{bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "unique", Value: false}}, 197},
		{bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}}, 40414},
		{bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "unique", Value: true}, {Key: "x", Value: 1}}, 40415},
		{"yes", 14},
	} {
		wantCode(t, run(bson.D{{Key: "create", Value: "bad"}, {Key: "clusteredIndex", Value: bad.opt}}), bad.code, "clusteredIndex")
	}
	wantCode(t, run(bson.D{{Key: "create", Value: "ttl"}, {Key: "expireAfterSeconds", Value: 5}}), 72, "expireAfterSeconds without clustering")
	wantCode(t, run(bson.D{{Key: "create", Value: "cc"}, {Key: "capped", Value: true}, {Key: "size", Value: 4096},
		{Key: "clusteredIndex", Value: spec}}), 72, "capped and clustered")
}

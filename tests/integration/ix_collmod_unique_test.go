package integration

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

// ixCollMod runs collMod {index} on coll with extra top-level fields.
func ixCollMod(ctx context.Context, coll *mongo.Collection, index bson.D, extra ...bson.E) (bson.D, error) {
	cmd := append(bson.D{{Key: "collMod", Value: coll.Name()}, {Key: "index", Value: index}}, extra...)
	var res bson.D
	err := coll.Database().RunCommand(ctx, cmd).Decode(&res)
	return res, err
}

// ixViolations returns the violations of a CannotConvertIndexToUnique
// error as JSON ("" if err is not one).
func ixViolations(err error) string {
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 359 {
		return ""
	}
	v, lerr := ce.Raw.LookupErr("violations")
	if lerr != nil {
		return "no violations"
	}
	var a bson.A
	if v.Unmarshal(&a) != nil {
		return "bad violations"
	}
	return asJSON(bson.D{{Key: "v", Value: a}})
}

// TestIxCollModConvertToUnique: MongoDB's conversion of an index to unique.
// prepareUnique: true refuses new duplicates (insert and update, 11000)
// while the old ones stay; unique: true and its dryRun answer 359 listing
// the duplicates' _ids; unique: true without prepareUnique is 72, unique:
// false 2, prepareUnique with another change 72. Once resolved, dryRun
// answers ok without converting and unique: true converts (unique_new);
// listIndexes, the oplog and a restart show it.
func TestIxCollModConvertToUnique(t *testing.T) {
	srv, c := startServer(t)
	coll := freshColl(t, c, "ixuniq")
	ctx := tctx(t, 30*time.Second)
	if _, err := coll.Indexes().CreateMany(ctx, []mongo.IndexModel{{Keys: bson.D{{Key: "a", Value: 1}}}, {Keys: bson.D{{Key: "b", Value: 1}}}}); err != nil {
		t.Fatal(err)
	}
	docs := []any{bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: "x"}}, bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: "x"}},
		bson.D{{Key: "_id", Value: 3}, {Key: "a", Value: "y"}}}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	_, err := ixCollMod(ctx, coll, bson.D{{Key: "name", Value: "a_1"}, {Key: "unique", Value: true}})
	wantCode(t, err, 72, "unique before prepareUnique")
	_, err = ixCollMod(ctx, coll, bson.D{{Key: "name", Value: "a_1"}, {Key: "prepareUnique", Value: true}, {Key: "hidden", Value: true}})
	wantCode(t, err, 72, "prepareUnique with hidden")
	res, err := ixCollMod(ctx, coll, bson.D{{Key: "keyPattern", Value: bson.D{{Key: "a", Value: 1}}}, {Key: "prepareUnique", Value: true}})
	if err != nil || field(res, "prepareUnique_old") != false || field(res, "prepareUnique_new") != true {
		t.Fatalf("prepareUnique = %s, %v", asJSON(res), err)
	}
	if field(indexSpec(t, coll, "a_1"), "prepareUnique") != true {
		t.Fatalf("listIndexes a_1 = %s, want prepareUnique: true", asJSON(indexSpec(t, coll, "a_1")))
	}
	_, err = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 4}, {Key: "a", Value: "y"}})
	wantCode(t, err, 11000, "insert duplicating a prepareUnique key")
	_, err = coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 3}}, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: "x"}}}})
	wantCode(t, err, 11000, "update duplicating a prepareUnique key")
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "$set", Value: bson.D{{Key: "c", Value: 1}}}}); err != nil {
		t.Fatalf("an existing duplicate's document stays writable: %v", err)
	}
	want := `{"v":[{"ids":[1,2]}]}`
	dry := bson.E{Key: "dryRun", Value: true}
	_, err = ixCollMod(ctx, coll, bson.D{{Key: "name", Value: "a_1"}, {Key: "unique", Value: true}}, dry)
	if got := ixViolations(err); got != want {
		t.Fatalf("dryRun with duplicates = %v (violations %s), want 359 with %s", err, got, want)
	}
	_, err = ixCollMod(ctx, coll, bson.D{{Key: "name", Value: "a_1"}, {Key: "unique", Value: true}})
	if got := ixViolations(err); got != want {
		t.Fatalf("unique with duplicates = %v (violations %s), want 359 with %s", err, got, want)
	}
	_, err = ixCollMod(ctx, coll, bson.D{{Key: "name", Value: "a_1"}, {Key: "unique", Value: false}})
	wantCode(t, err, 2, "unique: false")
	_, err = ixCollMod(ctx, coll, bson.D{{Key: "name", Value: "a_1"}, {Key: "hidden", Value: true}}, dry)
	wantCode(t, err, 72, "dryRun without unique")

	if _, err := coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: 2}}); err != nil {
		t.Fatal(err)
	}
	if res, err = ixCollMod(ctx, coll, bson.D{{Key: "name", Value: "a_1"}, {Key: "unique", Value: true}}, dry); err != nil || len(res) != 1 {
		t.Fatalf("dryRun once resolved = %s, %v; want {ok: 1}", asJSON(res), err)
	}
	if field(indexSpec(t, coll, "a_1"), "unique") != nil {
		t.Fatalf("dryRun converted: %s", asJSON(indexSpec(t, coll, "a_1")))
	}
	res, err = ixCollMod(ctx, coll, bson.D{{Key: "name", Value: "a_1"}, {Key: "unique", Value: true}})
	if err != nil || field(res, "unique_new") != true {
		t.Fatalf("convert = %s, %v", asJSON(res), err)
	}
	ixWantUnique(t, coll)
	if n, err := coll.CountDocuments(ctx, bson.D{{Key: "a", Value: "x"}}, options.Count().SetHint("a_1")); err != nil || n != 1 {
		t.Fatalf("count through the converted index = %d, %v", n, err)
	}
	var entry bson.D
	err = c.Database("local").Collection("oplog.rs").FindOne(ctx, bson.D{{Key: "op", Value: "c"},
		{Key: "o.collMod", Value: coll.Name()}, {Key: "o.index.unique", Value: true}}).Decode(&entry)
	if err != nil {
		t.Fatalf("no collMod oplog entry for the conversion: %v", err)
	}
	srv.Restart(t)
	ixWantUnique(t, srv.Client(t).Database("ixuniq").Collection(coll.Name()))
}

// ixWantUnique checks that a_1 is listed unique (without prepareUnique)
// and refuses a duplicate of "y".
func ixWantUnique(t *testing.T, coll *mongo.Collection) {
	t.Helper()
	spec := indexSpec(t, coll, "a_1")
	if field(spec, "unique") != true || field(spec, "prepareUnique") != nil {
		t.Fatalf("listIndexes a_1 = %s, want unique: true without prepareUnique", asJSON(spec))
	}
	_, err := coll.InsertOne(tctx(t, opTimeout), bson.D{{Key: "_id", Value: 5}, {Key: "a", Value: "y"}})
	wantCode(t, err, 11000, "insert duplicating a converted unique key")
}

// TestIxUniqueConversionReplicates: prepareUnique and the conversion reach
// the secondary through the oplog; the secondary's index is unique and
// agrees with its documents (validate).
func TestIxUniqueConversionReplicates(t *testing.T) {
	set := harness.StartSets(t, []cluster.Spec{{Name: "rsixu", Data: 2}})[0]
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	primary, err := mongo.Connect(options.Client().ApplyURI(set.URI()))
	if err != nil {
		t.Fatal(err)
	}
	defer primary.Disconnect(ctx)
	coll := primary.Database("ixrep").Collection("u", options.Collection().SetWriteConcern(writeconcern.Majority()))
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "a", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "a", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	wc := bson.E{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}}
	if _, err := ixCollMod(ctx, coll, bson.D{{Key: "name", Value: "a_1"}, {Key: "prepareUnique", Value: true}}, wc); err != nil {
		t.Fatal(err)
	}
	if _, err := ixCollMod(ctx, coll, bson.D{{Key: "name", Value: "a_1"}, {Key: "unique", Value: true}}, wc); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 100}, {Key: "a", Value: 100}}); err != nil {
		t.Fatal(err)
	}
	for _, m := range set.Members() {
		cl, err := set.Client(m)
		if err != nil {
			t.Fatal(err)
		}
		db := cl.Database("ixrep", options.Database().SetReadPreference(readpref.SecondaryPreferred()))
		ixWaitSpec(t, db.Collection("u"), m.Name)
		var v bson.D
		if err := db.RunCommand(ctx, bson.D{{Key: "validate", Value: "u"}}).Decode(&v); err != nil || field(v, "valid") != true {
			t.Errorf("member %s: validate = %s, %v", m.Name, asJSON(v), err)
		}
		keys, _ := field(v, "keysPerIndex").(bson.D)
		if n := asJSON(bson.D{{Key: "n", Value: field(keys, "a_1")}}); n != `{"n":51}` {
			t.Errorf("member %s: a_1 has %v keys, want 51 (%s)", m.Name, field(keys, "a_1"), asJSON(v))
		}
	}
}

// ixWaitSpec polls until a_1 is listed unique on the member.
func ixWaitSpec(t *testing.T, coll *mongo.Collection, member string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		spec := indexSpec(t, coll, "a_1")
		if field(spec, "unique") == true && field(spec, "prepareUnique") == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("member %s: a_1 = %s, want unique", member, asJSON(spec))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

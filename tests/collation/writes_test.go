package collation

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestCollationWrites: update, delete and findAndModify match under the
// statement's collation (or the collection's default).
func TestCollationWrites(t *testing.T) {
	srv := harness.Start(t)
	db := srv.Client(t).Database("collw")

	coll := seeded(t, db, "a", "A", "b")
	res, err := coll.UpdateMany(tctx(t), bson.D{{Key: "s", Value: "a"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "hit", Value: true}}}},
		options.UpdateMany().SetCollation(en2))
	if err != nil || res.MatchedCount != 2 || res.ModifiedCount != 2 {
		t.Errorf("updateMany {s: \"a\"} under en/2: %+v %v, want 2 matched", res, err)
	}
	res, err = coll.UpdateOne(tctx(t), bson.D{{Key: "s", Value: "B"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "hit", Value: true}}}})
	if err != nil || res.MatchedCount != 0 {
		t.Errorf("updateOne {s: \"B\"} binary: %+v %v, want none matched", res, err)
	}
	var got struct{ S string }
	err = coll.FindOneAndUpdate(tctx(t), bson.D{{Key: "s", Value: "B"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "fam", Value: 1}}}},
		options.FindOneAndUpdate().SetCollation(en2)).Decode(&got)
	if err != nil || got.S != "b" {
		t.Errorf("findOneAndUpdate {s: \"B\"} under en/2: %+v %v, want the \"b\" document", got, err)
	}
	del, err := coll.DeleteMany(tctx(t), bson.D{{Key: "s", Value: "A"}}, options.DeleteMany().SetCollation(en2))
	if err != nil || del.DeletedCount != 2 {
		t.Errorf("deleteMany {s: \"A\"} under en/2: %+v %v, want 2 deleted", del, err)
	}

	def := db.Collection("writesDefault")
	_ = def.Drop(tctx(t))
	if err := db.CreateCollection(tctx(t), def.Name(), options.CreateCollection().SetCollation(en2)); err != nil {
		t.Fatal(err)
	}
	if _, err := def.InsertMany(tctx(t), []any{bson.D{{Key: "s", Value: "x"}}, bson.D{{Key: "s", Value: "X"}}}); err != nil {
		t.Fatal(err)
	}
	if del, err := def.DeleteMany(tctx(t), bson.D{{Key: "s", Value: "x"}}); err != nil || del.DeletedCount != 2 {
		t.Errorf("deleteMany under the collection's default en/2: %+v %v, want 2", del, err)
	}
	if err := db.RunCommand(tctx(t), bson.D{{Key: "delete", Value: def.Name()}, {Key: "deletes", Value: bson.A{
		bson.D{{Key: "q", Value: bson.D{}}, {Key: "limit", Value: 0}, {Key: "collation", Value: bson.D{{Key: "locale", Value: "zz_bad"}}}},
	}}}).Err(); !isCode(err, 2) {
		t.Errorf("delete with a bad collation: %v, want BadValue", err)
	}
}

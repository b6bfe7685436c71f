package collation

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestViewCollation: a view reads under its own default collation (not
// its source's), which an operation may repeat but not override (167).
func TestViewCollation(t *testing.T) {
	srv := harness.Start(t)
	db := srv.Client(t).Database("collv")
	src := db.Collection("src")
	if err := db.CreateCollection(tctx(t), "src", options.CreateCollection().SetCollation(en2)); err != nil {
		t.Fatal(err)
	}
	if _, err := src.InsertMany(tctx(t), []any{bson.D{{Key: "s", Value: "a"}}, bson.D{{Key: "s", Value: "A"}}}); err != nil {
		t.Fatal(err)
	}
	ci := bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: int32(2)}}
	run := func(cmd bson.D) error { return db.RunCommand(tctx(t), cmd).Err() }
	if err := run(bson.D{{Key: "create", Value: "ciView"}, {Key: "viewOn", Value: "src"}, {Key: "pipeline", Value: bson.A{}}, {Key: "collation", Value: ci}}); err != nil {
		t.Fatal(err)
	}
	if err := run(bson.D{{Key: "create", Value: "plainView"}, {Key: "viewOn", Value: "src"}, {Key: "pipeline", Value: bson.A{}}}); err != nil {
		t.Fatal(err)
	}
	count := func(view string, opts ...options.Lister[options.CountOptions]) int64 {
		n, err := db.Collection(view).CountDocuments(tctx(t), bson.D{{Key: "s", Value: "a"}}, opts...)
		if err != nil {
			t.Fatalf("count on %s: %v", view, err)
		}
		return n
	}
	if n := count("ciView"); n != 2 {
		t.Errorf("count on the en/2 view: %d, want 2", n)
	}
	if n := count("ciView", options.Count().SetCollation(en2)); n != 2 {
		t.Errorf("count on the en/2 view repeating its collation: %d, want 2", n)
	}
	if n := count("plainView"); n != 1 {
		t.Errorf("count on a view without collation over an en/2 collection: %d, want 1 (simple)", n)
	}
	override := bson.D{{Key: "find", Value: "ciView"}, {Key: "collation", Value: bson.D{{Key: "locale", Value: "simple"}}}}
	if err := run(override); !isCode(err, 167) {
		t.Errorf("find on the view with another collation: %v, want OptionNotSupportedOnView", err)
	}
	onView := bson.D{{Key: "create", Value: "v2"}, {Key: "viewOn", Value: "ciView"}, {Key: "pipeline", Value: bson.A{}}}
	if err := run(onView); !isCode(err, 167) {
		t.Errorf("a simple view on the en/2 view: %v, want OptionNotSupportedOnView", err)
	}
	// $lookup from a view needs the view's collation: src's default is
	// en/2, ciView's too; plainView's is simple.
	lookup := func(from string) error {
		cur, err := src.Aggregate(tctx(t), bson.A{bson.D{{Key: "$lookup", Value: bson.D{{Key: "from", Value: from},
			{Key: "localField", Value: "s"}, {Key: "foreignField", Value: "s"}, {Key: "as", Value: "m"}}}}})
		if err != nil {
			return err
		}
		var out []bson.D
		return cur.All(tctx(t), &out)
	}
	if err := lookup("ciView"); err != nil {
		t.Errorf("$lookup from a view of the same collation: %v", err)
	}
	if err := lookup("plainView"); !isCode(err, 167) {
		t.Errorf("$lookup from a view of another collation: %v, want OptionNotSupportedOnView", err)
	}
	specs, err := db.ListCollectionSpecifications(tctx(t), bson.D{{Key: "name", Value: "ciView"}})
	if err != nil || len(specs) != 1 {
		t.Fatalf("listCollections: %v %v", specs, err)
	}
	if doc, ok := specs[0].Options.Lookup("collation").DocumentOK(); !ok || doc.Lookup("strength").Int32() != 2 {
		t.Errorf("listCollections options %v: want the view's full collation", specs[0].Options)
	}
}

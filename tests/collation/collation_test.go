// Package collation tests collations end to end: the real relaydb binary
// on loopback, driven by the official Go driver.
package collation

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/tests/harness"
)

const opTimeout = 20 * time.Second

func tctx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	t.Cleanup(cancel)
	return ctx
}

var (
	en2 = &options.Collation{Locale: "en", Strength: 2}
	enN = &options.Collation{Locale: "en", NumericOrdering: true}
)

// seeded returns a fresh collection named after the test holding words.
func seeded(t *testing.T, db *mongo.Database, words ...string) *mongo.Collection {
	t.Helper()
	coll := db.Collection(strings.ReplaceAll(t.Name(), "/", "_"))
	if err := coll.Drop(tctx(t)); err != nil {
		t.Fatal(err)
	}
	docs := make([]any, len(words))
	for i, w := range words {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "s", Value: w}}
	}
	if len(docs) > 0 {
		if _, err := coll.InsertMany(tctx(t), docs); err != nil {
			t.Fatal(err)
		}
	}
	return coll
}

// strs reads the s fields of a find's documents.
func strs(t *testing.T) func(*mongo.Cursor, error) []string {
	return func(cur *mongo.Cursor, err error) []string { return readStrs(t, cur, err) }
}

func readStrs(t *testing.T, cur *mongo.Cursor, err error) []string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct{ S string }
	if err := cur.All(tctx(t), &docs); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.S
	}
	return out
}

func TestCollation(t *testing.T) {
	srv := harness.Start(t)
	db := srv.Client(t).Database("coll")
	t.Run("FindSortCountDistinct", func(t *testing.T) { testFindSortCountDistinct(t, db) })
	t.Run("BadSpecs", func(t *testing.T) { testBadSpecs(t, db) })
	t.Run("IndexServesItsCollation", func(t *testing.T) { testIndexServesItsCollation(t, db) })
	t.Run("UniqueStrength2", func(t *testing.T) { testUniqueStrength2(t, db) })
	t.Run("CollectionDefault", func(t *testing.T) { testCollectionDefault(t, db) })
}

func testFindSortCountDistinct(t *testing.T, db *mongo.Database) {
	coll := seeded(t, db, "b", "A", "a", "B", "10", "9")
	got := strs(t)(coll.Find(tctx(t), bson.D{{Key: "s", Value: "a"}}, options.Find().SetCollation(en2).SetSort(bson.D{{Key: "_id", Value: 1}})))
	if !slices.Equal(got, []string{"A", "a"}) {
		t.Errorf("find {s: \"a\"} under en/2: %q", got)
	}
	got = strs(t)(coll.Find(tctx(t), bson.D{{Key: "s", Value: "a"}}))
	if !slices.Equal(got, []string{"a"}) {
		t.Errorf("find {s: \"a\"} binary: %q", got)
	}
	got = strs(t)(coll.Find(tctx(t), bson.D{{Key: "s", Value: bson.D{{Key: "$in", Value: bson.A{"9", "10"}}}}},
		options.Find().SetCollation(enN).SetSort(bson.D{{Key: "s", Value: 1}})))
	if !slices.Equal(got, []string{"9", "10"}) {
		t.Errorf("numericOrdering sort: %q, want [9 10]", got)
	}
	n, err := coll.CountDocuments(tctx(t), bson.D{{Key: "s", Value: "B"}}, options.Count().SetCollation(en2))
	if err != nil || n != 2 {
		t.Errorf("countDocuments {s: \"B\"} under en/2: %d, %v", n, err)
	}
	res := coll.Distinct(tctx(t), "s", bson.D{{Key: "s", Value: bson.D{{Key: "$lt", Value: "c"}}}}, options.Distinct().SetCollation(en2))
	var vals []string
	if err := res.Decode(&vals); err != nil || len(vals) != 4 {
		t.Errorf("distinct under en/2: %q, %v; want 4 values (10, 9, a, b)", vals, err)
	}
}

func testBadSpecs(t *testing.T, db *mongo.Database) {
	coll := seeded(t, db, "x")
	cases := []struct {
		c    bson.D
		code int32
	}{
		{bson.D{{Key: "locale", Value: "xx_bogus"}}, 2},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 6}}, 9},
		{bson.D{{Key: "strength", Value: 2}}, 4},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "version", Value: "1"}}, 174},
	}
	for _, tc := range cases {
		err := db.RunCommand(tctx(t), bson.D{{Key: "find", Value: coll.Name()}, {Key: "collation", Value: tc.c}}).Err()
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != tc.code {
			t.Errorf("find with collation %v: %v, want code %d", tc.c, err, tc.code)
		}
	}
}

// explainIndex is the index name the winning plan of a find uses ("" when
// none).
func explainIndex(t *testing.T, db *mongo.Database, find bson.D) string {
	t.Helper()
	raw, err := db.RunCommand(tctx(t), bson.D{{Key: "explain", Value: find}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	wp, err := raw.LookupErr("queryPlanner", "winningPlan")
	if err != nil {
		t.Fatalf("explain %v: %v", find, err)
	}
	s := wp.String()
	if i := strings.Index(s, `"indexName": "`); i >= 0 {
		rest := s[i+len(`"indexName": "`):]
		return rest[:strings.IndexByte(rest, '"')]
	}
	if i := strings.Index(s, `"indexName":"`); i >= 0 {
		rest := s[i+len(`"indexName":"`):]
		return rest[:strings.IndexByte(rest, '"')]
	}
	return ""
}

func testIndexServesItsCollation(t *testing.T, db *mongo.Database) {
	coll := seeded(t, db, "b", "A", "a", "B")
	_, err := coll.Indexes().CreateOne(tctx(t), mongo.IndexModel{Keys: bson.D{{Key: "s", Value: 1}},
		Options: options.Index().SetName("s_ci").SetCollation(en2)})
	if err != nil {
		t.Fatal(err)
	}
	ci := bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}}
	withColl := bson.D{{Key: "find", Value: coll.Name()}, {Key: "filter", Value: bson.D{{Key: "s", Value: "a"}}}, {Key: "collation", Value: ci}}
	if got := explainIndex(t, db, withColl); got != "s_ci" {
		t.Errorf("find under the index's collation uses %q, want s_ci", got)
	}
	binary := bson.D{{Key: "find", Value: coll.Name()}, {Key: "filter", Value: bson.D{{Key: "s", Value: "a"}}}}
	if got := explainIndex(t, db, binary); got != "" {
		t.Errorf("find under the simple collation uses index %q, want a collection scan", got)
	}
	got := strs(t)(coll.Find(tctx(t), bson.D{{Key: "s", Value: bson.D{{Key: "$gte", Value: "B"}}}},
		options.Find().SetCollation(en2).SetSort(bson.D{{Key: "s", Value: 1}, {Key: "_id", Value: 1}})))
	if !slices.Equal(got, []string{"b", "B"}) {
		t.Errorf("range through the collated index: %q, want [b B]", got)
	}
	var specs []bson.Raw
	cur, err := coll.Indexes().List(tctx(t))
	if err == nil {
		err = cur.All(tctx(t), &specs)
	}
	if err != nil || len(specs) != 2 {
		t.Fatalf("listIndexes: %v %v", specs, err)
	}
	var c struct {
		Locale, CaseFirst, Alternate, MaxVariable, Version   string
		Strength                                             int32
		CaseLevel, NumericOrdering, Normalization, Backwards bool
	}
	if err := bson.Unmarshal(specs[1].Lookup("collation").Value, &c); err != nil || c.Locale != "en" || c.Strength != 2 ||
		c.CaseFirst != "off" || c.Alternate != "non-ignorable" || c.MaxVariable != "punct" || c.Version != "57.1" {
		t.Errorf("listIndexes collation %v (%v): want the full spec", specs[1], err)
	}
}

func testUniqueStrength2(t *testing.T, db *mongo.Database) {
	coll := seeded(t, db, "a")
	_, err := coll.Indexes().CreateOne(tctx(t), mongo.IndexModel{Keys: bson.D{{Key: "s", Value: 1}},
		Options: options.Index().SetUnique(true).SetCollation(en2)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = coll.InsertOne(tctx(t), bson.D{{Key: "_id", Value: 10}, {Key: "s", Value: "A"}})
	if !mongo.IsDuplicateKeyError(err) {
		t.Fatalf("insert \"A\" beside \"a\" under a unique en/2 index: %v, want E11000", err)
	}
	if _, err := coll.InsertOne(tctx(t), bson.D{{Key: "_id", Value: 11}, {Key: "s", Value: "á"}}); err != nil {
		t.Fatalf("\"á\" differs from \"a\" at strength 2: %v", err)
	}
}

func testCollectionDefault(t *testing.T, db *mongo.Database) {
	name := "withDefault"
	_ = db.Collection(name).Drop(tctx(t))
	if err := db.CreateCollection(tctx(t), name, options.CreateCollection().SetCollation(en2)); err != nil {
		t.Fatal(err)
	}
	coll := db.Collection(name)
	if _, err := coll.InsertMany(tctx(t), []any{bson.D{{Key: "s", Value: "a"}}, bson.D{{Key: "s", Value: "A"}}}); err != nil {
		t.Fatal(err)
	}
	if n, err := coll.CountDocuments(tctx(t), bson.D{{Key: "s", Value: "a"}}); err != nil || n != 2 {
		t.Errorf("count under the collection's default en/2: %d %v, want 2", n, err)
	}
	simple := &options.Collation{Locale: "simple"}
	if n, err := coll.CountDocuments(tctx(t), bson.D{{Key: "s", Value: "a"}}, options.Count().SetCollation(simple)); err != nil || n != 1 {
		t.Errorf("count under an explicit simple collation: %d %v, want 1", n, err)
	}
	specs, err := db.ListCollectionSpecifications(tctx(t), bson.D{{Key: "name", Value: name}})
	if err != nil || len(specs) != 1 {
		t.Fatalf("listCollections: %v %v", specs, err)
	}
	raw := specs[0].Options.Lookup("collation")
	if doc, ok := raw.DocumentOK(); !ok || doc.Lookup("strength").Int32() != 2 || doc.Lookup("version").StringValue() != "57.1" {
		t.Errorf("listCollections collation %v: want the full spec", raw)
	}
	if _, err := coll.Indexes().CreateOne(tctx(t), mongo.IndexModel{Keys: bson.D{{Key: "s", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	ci := bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}}
	if got := explainIndex(t, db, bson.D{{Key: "find", Value: name}, {Key: "filter", Value: bson.D{{Key: "s", Value: "a"}}}, {Key: "collation", Value: ci}}); got != "s_1" {
		t.Errorf("the inherited index serves en/2 queries: index %q, want s_1", got)
	}
}

// isCode reports a command error with code.
func isCode(err error, code int32) bool {
	var ce mongo.CommandError
	return errors.As(err, &ce) && ce.Code == code
}

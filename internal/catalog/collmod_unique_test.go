package catalog

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// TestCollModPrepareUniqueThenUnique walks MongoDB's conversion: prepare,
// a new duplicate is refused while the old ones stay, unique: true lists
// the violations until they are resolved, then converts.
func TestCollModPrepareUniqueThenUnique(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	if _, _, err := c.CreateIndexes(coll, []bson.D{spec("a_1", d("a", 1))}); err != nil {
		t.Fatal(err)
	}
	for i, a := range []int32{1, 1, 2} {
		if _, err := c.Insert(c.Collection("db", "c"), d("_id", int32(i), "a", a)); err != nil {
			t.Fatal(err)
		}
	}
	mod := func(doc bson.D, extra ...bson.E) (*IndexMod, error) {
		_, m, err := c.CollModIndex("db", "c", append(bson.D{{Key: "index", Value: doc}}, extra...))
		return m, err
	}
	m, err := mod(d("name", "a_1", "prepareUnique", true))
	if err != nil || bsonx.Compare(m.Reply, d("prepareUnique_old", false, "prepareUnique_new", true)) != 0 {
		t.Fatalf("prepareUnique: %v %v", m, err)
	}
	if _, err := mod(d("name", "a_1", "prepareUnique", true, "hidden", true)); !mongoerr.Is(err, mongoerr.InvalidOptions) {
		t.Fatalf("prepareUnique with hidden: %v", err)
	}
	if _, err := c.Insert(c.Collection("db", "c"), d("_id", int32(9), "a", int32(2))); !mongoerr.Is(err, mongoerr.DuplicateKey) {
		t.Fatalf("duplicate insert: %v", err)
	}
	if _, err := c.Insert(c.Collection("db", "c"), d("_id", int32(9), "a", int32(3))); err != nil {
		t.Fatalf("new key: %v", err)
	}
	// the document holding a key may keep it (an update of another field)
	if _, err := c.Update(c.Collection("db", "c"), d("_id", int32(2), "a", int32(2)), d("_id", int32(2), "a", int32(2), "b", 1), nil); err != nil {
		t.Fatalf("update keeping the key: %v", err)
	}
	if err := c.CheckUniqueConversion("db", "c", d("name", "a_1", "unique", true)); !hasViolations(err, 0, 1) {
		t.Fatalf("dry run: %v", err)
	}
	if _, err := mod(d("name", "a_1", "unique", true)); !hasViolations(err, 0, 1) {
		t.Fatalf("convert with duplicates: %v", err)
	}
	if _, err := c.Delete(c.Collection("db", "c"), d("_id", int32(1), "a", int32(1))); err != nil {
		t.Fatal(err)
	}
	if err := c.CheckUniqueConversion("db", "c", d("name", "a_1", "unique", true)); err != nil {
		t.Fatalf("dry run once resolved: %v", err)
	}
	m, err = mod(d("keyPattern", d("a", int32(1)), "unique", true))
	if err != nil || bsonx.Compare(m.Reply, d("unique_new", true)) != 0 {
		t.Fatalf("convert: %v %v", m, err)
	}
	idx := c.Collection("db", "c").Index("a_1")
	if _, prep := bsonx.Get(idx.Spec, "prepareUnique"); !idx.Unique || prep || idx.PrepareUnique() {
		t.Fatalf("converted spec %v", idx.Spec)
	}
	if _, err := c.Insert(c.Collection("db", "c"), d("_id", int32(10), "a", int32(3))); !mongoerr.Is(err, mongoerr.DuplicateKey) {
		t.Fatalf("duplicate after conversion: %v", err)
	}
	if m, err := mod(d("name", "a_1", "unique", true)); err != nil || len(m.Reply) != 0 {
		t.Fatalf("unique again is a no-op: %v %v", m, err)
	}
	res, err := c.Validate(c.Collection("db", "c"))
	if err != nil || len(res.Problems) != 0 || res.KeysPerIndex[1].Keys != 3 {
		t.Fatalf("validate after conversion: %+v %v", res, err)
	}
}

// hasViolations reports whether err is 359 whose one violation lists ids.
func hasViolations(err error, ids ...int32) bool {
	var ce *convertError
	if !errors.As(err, &ce) || !mongoerr.Is(err, mongoerr.CannotConvertIndexToUnique) || len(ce.violations) != 1 {
		return false
	}
	want := bson.A{}
	for _, id := range ids {
		want = append(want, id)
	}
	got, _ := bsonx.Get(ce.violations[0].(bson.D), "ids")
	return bsonx.Compare(got, want) == 0
}

// TestPrepareUniqueOneBatch: two documents of one batch may not share a
// key of a prepareUnique index.
func TestPrepareUniqueOneBatch(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	if _, _, err := c.CreateIndexes(coll, []bson.D{spec("a_1", d("a", 1), "prepareUnique", true)}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Apply(func(w *Writer) error {
		live := c.Collection("db", "c")
		for i := int32(0); i < 2; i++ {
			if err := w.PutDocument(live, d("_id", i, "a", int32(5)), nil); err != nil {
				return err
			}
		}
		return nil
	})
	if !mongoerr.Is(err, mongoerr.DuplicateKey) {
		t.Fatalf("one batch: %v", err)
	}
}

// TestDryRunRefusesIndexThatCannotBeUnique: a prepareUnique wildcard index
// answers the dry run as the conversion does (CannotCreateIndex), without
// scanning entries whose keys are not the key pattern's.
func TestDryRunRefusesIndexThatCannotBeUnique(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	if _, _, err := c.CreateIndexes(coll, []bson.D{spec("w", d("$**", 1), "prepareUnique", true)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Insert(c.Collection("db", "c"), d("_id", int32(1), "a", int32(1))); err != nil {
		t.Fatal(err)
	}
	err := c.CheckUniqueConversion("db", "c", d("name", "w", "unique", true))
	_, _, err2 := c.CollModIndex("db", "c", bson.D{{Key: "index", Value: d("name", "w", "unique", true)}})
	if !mongoerr.Is(err, mongoerr.CannotCreateIndex) || !mongoerr.Is(err2, mongoerr.CannotCreateIndex) {
		t.Fatalf("dry run %v, conversion %v; want CannotCreateIndex for both", err, err2)
	}
}

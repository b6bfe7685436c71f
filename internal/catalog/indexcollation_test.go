package catalog

import (
	"testing"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func enCollation(strength int32) bson.D { return d("locale", "en", "strength", strength) }

func TestUniqueStrength2IndexRefusesCaseVariants(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	mustIndex(t, c, coll, spec("s_1", d("s", 1), "unique", true, "collation", enCollation(2)))
	mustInsert(t, c, live(c, coll), d("_id", 1, "s", "a"))
	if _, err := c.Insert(live(c, coll), d("_id", 2, "s", "A")); !mongoerr.Is(err, mongoerr.DuplicateKey) {
		t.Fatalf("insert \"A\" next to \"a\" under strength 2: %v, want DuplicateKey", err)
	}
	mustInsert(t, c, live(c, coll), d("_id", 3, "s", "b"))
}

func TestIndexCollationSpec(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	mustIndex(t, c, coll,
		spec("s_en", d("s", 1), "collation", d("locale", "en")),
		spec("s_simple", d("s", -1), "collation", d("locale", "simple")))
	en := live(c, coll).Index("s_en")
	col, _ := bsonx.Get(en.Spec, "collation")
	if v, _ := bsonx.Get(col.(bson.D), "strength"); v != int32(3) || en.Collator() == nil {
		t.Fatalf("s_en spec %v: want the full collation", en.Spec)
	}
	if s := live(c, coll).Index("s_simple"); s.Collator() != nil || hasField(s.Spec, "collation") {
		t.Fatalf("s_simple spec %v: a simple collation is not shown", s.Spec)
	}
	if _, _, err := c.CreateIndexes(live(c, coll), []bson.D{spec("t", d("t", "text"), "collation", d("locale", "en"))}); !mongoerr.Is(err, mongoerr.CannotCreateIndex) {
		t.Fatalf("collated text index: %v, want CannotCreateIndex", err)
	}
}

func TestIndexInheritsCollectionCollation(t *testing.T) {
	c := openMem(t)
	coll, err := c.CreateCollection("db", "c", d("collation", d("locale", "fr")))
	if err != nil {
		t.Fatal(err)
	}
	mustIndex(t, c, coll, spec("a_1", d("a", 1)), spec("b_1", d("b", 1), "collation", d("locale", "simple")))
	if live(c, coll).Index("a_1").Collator() == nil {
		t.Fatal("a_1 did not inherit the collection's collation")
	}
	if live(c, coll).Index("b_1").Collator() != nil {
		t.Fatal("b_1 asked for the simple collation")
	}
}

func hasField(d bson.D, k string) bool {
	_, ok := bsonx.Get(d, k)
	return ok
}

func TestDuplicateKeyValueIsValidUTF8(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	mustIndex(t, c, coll, spec("s_1", d("s", 1), "unique", true, "collation", enCollation(2)))
	mustInsert(t, c, live(c, coll), d("_id", 1, "s", "zebra"))
	_, err := c.Insert(live(c, coll), d("_id", 2, "s", "ZEBRA"))
	var dk *DuplicateKeyError
	if !mongoerrAs(err, &dk) {
		t.Fatalf("insert: %v, want DuplicateKeyError", err)
	}
	s, _ := dk.KeyValue[0].Value.(string)
	if !utf8.ValidString(s) || s == "" {
		t.Fatalf("keyValue %q is not valid UTF-8", s)
	}
}

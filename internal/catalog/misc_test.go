package catalog

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestFormatKeyDoc(t *testing.T) {
	oid, _ := bson.ObjectIDFromHex("64b7f0a1c2d3e4f5a6b7c8d9")
	tests := []struct {
		in   bson.D
		want string
	}{
		{d(), "{}"},
		{d("_id", int32(1)), "{ _id: 1 }"},
		{d("a", "x", "b", nil), `{ a: "x", b: null }`},
		{d("_id", oid), "{ _id: ObjectId('64b7f0a1c2d3e4f5a6b7c8d9') }"},
		{d("a.b", 1.5), "{ a.b: 1.5 }"},
		{d("a", d("x", int64(2))), "{ a: { x: 2 } }"},
		{d("a", bson.A{int32(1), "s"}), `{ a: [ 1, "s" ] }`},
		{d("a", bson.MinKey{}, "b", bson.MaxKey{}, "c", bson.Undefined{}), "{ a: MinKey, b: MaxKey, c: undefined }"},
		{d("a", true), "{ a: true }"},
	}
	for _, tc := range tests {
		if got := formatKeyDoc(tc.in); got != tc.want {
			t.Errorf("formatKeyDoc(%v) = %q want %q", tc.in, got, tc.want)
		}
	}
}

func TestDuplicateKeyErrorUnwraps(t *testing.T) {
	coll := &Collection{DB: "db", Name: "c"}
	idx := &Index{Name: "a_1", Key: d("a", int32(1))}
	err := error(newDupKey(coll, idx, d("a", int32(3))))
	me := mongoerr.From(err)
	if me.Code != mongoerr.DuplicateKey || me.Msg != "E11000 duplicate key error collection: db.c index: a_1 dup key: { a: 3 }" {
		t.Fatalf("From: %+v", me)
	}
	if err.Error() != me.Error() {
		t.Fatal("Error() differs from the wrapped error")
	}
}

func TestCatalogEntryRoundTrip(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	mustIndex(t, c, coll, spec("a_1", d("a", int32(-1)), "sparse", true, "expireAfterSeconds", int32(5)))
	b := c.eng.NewBatch()
	defer b.Close()
	cur := live(c, coll)
	if err := putEntry(b, cur, cur.Indexes()); err != nil {
		t.Fatal(err)
	}
	raw, ok, err := b.Get(catalogKeyOf(cur))
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	c2 := &Catalog{eng: c.eng}
	c2.mu.byNS = map[string]*Collection{}
	c2.mu.byID = map[uint32]*Collection{}
	if err := c2.loadEntry(raw); err != nil {
		t.Fatal(err)
	}
	got := c2.mu.byNS["db.c"]
	idx := got.Index("a_1")
	if got.ID != cur.ID || idx == nil || !idx.Sparse || idx.ExpireAfterSeconds == nil || *idx.ExpireAfterSeconds != 5 || !isDesc(idx.Key[0].Value) {
		t.Fatalf("loaded %+v %+v", got, idx)
	}
	if err := c2.loadEntry([]byte{5, 0, 0, 0, 1}); err == nil {
		t.Fatal("garbage entry loaded")
	}
}

func TestIteratorsCloseTwiceAndEmpty(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	mustIndex(t, c, coll, spec("a_1", d("a", 1), "unique", true))
	for _, it := range []DocIterator{coll.Scan(false), coll.ScanIndex(live(c, coll).Index("a_1"), nil, nil, true)} {
		if _, ok := it.Next(); ok {
			t.Fatal("empty collection yielded a document")
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		if err := it.Close(); err != nil {
			t.Fatal("second Close failed")
		}
		if _, ok := it.Next(); ok || it.Err() != nil {
			t.Fatal("Next after Close")
		}
	}
}

func TestScanIsPointInTime(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	mustIndex(t, c, coll, spec("a_1", d("a", 1), "unique", true))
	mustInsert(t, c, coll, d("_id", 1, "a", 1))
	scan := coll.Scan(false)
	ix := coll.ScanIndex(live(c, coll).Index("a_1"), nil, nil, false)
	mustInsert(t, c, coll, d("_id", 2, "a", 2))
	if n := len(drain(t, scan)); n != 1 {
		t.Fatalf("scan saw %d docs", n)
	}
	if n := len(drain(t, ix)); n != 1 {
		t.Fatalf("index scan saw %d docs", n)
	}
}

func TestSameOptionsAndKeyPattern(t *testing.T) {
	five, six := int64(5), int64(6)
	tests := []struct {
		a, b *Index
		same bool
	}{
		{&Index{}, &Index{}, true},
		{&Index{Unique: true}, &Index{}, false},
		{&Index{Sparse: true}, &Index{}, false},
		{&Index{ExpireAfterSeconds: &five}, &Index{ExpireAfterSeconds: &six}, false},
		{&Index{ExpireAfterSeconds: &five}, &Index{ExpireAfterSeconds: &five}, true},
		{&Index{ExpireAfterSeconds: &five}, &Index{}, false},
		{&Index{Partial: d("a", 1)}, &Index{Partial: d("a", 2)}, false},
	}
	for i, tc := range tests {
		if got := sameOptions(tc.a, tc.b); got != tc.same {
			t.Errorf("case %d: %v", i, got)
		}
	}
	if !keyPatternEqual(d("a", int32(1), "b", -1.0), d("a", int64(1), "b", int32(-1))) ||
		keyPatternEqual(d("a", 1), d("a", 1, "b", 1)) || keyPatternEqual(d("a", 1), d("b", 1)) {
		t.Fatal("keyPatternEqual")
	}
}

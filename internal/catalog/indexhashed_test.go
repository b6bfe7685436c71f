package catalog

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx/bsonhash"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func mustHash(t *testing.T, v any) int64 {
	t.Helper()
	h, err := bsonhash.Hash(v)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// The entry of a hashed index stores the NumberLong hash of the hashed
// field and the other fields as they are (MongoDB's getHashKeys).
func TestHashedIndexKeys(t *testing.T) {
	for _, tc := range []struct {
		name   string
		key    bson.D
		sparse bool
		doc    bson.D
		want   []any // decoded values of the one key; nil slice = no entry
		code   mongoerr.Code
	}{
		{name: "single", key: d("a", "hashed"), doc: d("a", int32(3)), want: []any{mustHash(t, int32(3))}},
		{name: "numbers hash as int64", key: d("a", "hashed"), doc: d("a", 3.9), want: []any{mustHash(t, int64(3))}},
		{name: "missing is null", key: d("a", "hashed"), doc: d("b", 1), want: []any{mustHash(t, nil)}},
		{name: "document value", key: d("a", "hashed"), doc: d("a", d("x", "y")), want: []any{mustHash(t, d("x", "y"))}},
		{name: "dotted", key: d("a.b", "hashed"), doc: d("a", d("b", "x")), want: []any{mustHash(t, "x")}},
		{name: "scalar on path", key: d("a.b", "hashed"), doc: d("a", int32(1)), want: []any{mustHash(t, nil)}},
		{name: "compound", key: d("a", 1, "b", "hashed", "c", -1), doc: d("a", "x", "b", int32(2), "c", true),
			want: []any{"x", mustHash(t, int32(2)), true}},
		{name: "array hashed field", key: d("a", "hashed"), doc: d("a", bson.A{int32(1)}), code: mongoerr.HashedIndexArray},
		{name: "empty array", key: d("a", "hashed"), doc: d("a", bson.A{}), code: mongoerr.HashedIndexArray},
		{name: "array on path", key: d("a.b", "hashed"), doc: d("a", bson.A{d("b", 1)}), code: mongoerr.HashedIndexArray},
		{name: "array in other field", key: d("a", "hashed", "c", 1), doc: d("a", 1, "c", bson.A{}), code: mongoerr.HashedIndexArray},
		{name: "numeric part is a field name", key: d("a.0", "hashed"), doc: d("a", d("0", "z")), want: []any{mustHash(t, "z")}},
		{name: "sparse skips missing", key: d("a", "hashed", "b", 1), sparse: true, doc: d("c", 1)},
		{name: "sparse keeps null", key: d("a", "hashed"), sparse: true, doc: d("a", nil), want: []any{mustHash(t, nil)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			idx := &Index{Name: "x", Key: tc.key, Sparse: tc.sparse}
			keys, multi, err := indexKeys(idx, tc.doc)
			if tc.code != 0 {
				if !mongoerr.Is(err, tc.code) {
					t.Fatalf("want code %d, got %v", tc.code, err)
				}
				return
			}
			if err != nil || multi {
				t.Fatalf("err %v multikey %v", err, multi)
			}
			if tc.want == nil {
				if keys != nil {
					t.Fatalf("want no entry, got %d", len(keys))
				}
				return
			}
			if len(keys) != 1 {
				t.Fatalf("want one key, got %d", len(keys))
			}
			vd, err := keyValueDoc(idx, keys[0])
			if err != nil {
				t.Fatal(err)
			}
			var got []any
			for _, e := range vd {
				got = append(got, e.Value)
			}
			if !sameValues([][]any{got}, [][]any{tc.want}) {
				t.Fatalf("key %v want %v", got, tc.want)
			}
		})
	}
}

func TestHashedArrayMessage(t *testing.T) {
	idx := &Index{Name: "x", Key: d("f1.f2.0.f4", "hashed")}
	_, _, err := indexKeys(idx, d("f1", d("f2", bson.A{})))
	const want = "Error: hashed indexes do not currently support array values. Found array at path: f1.f2"
	if e := mongoerr.From(err); e == nil || e.Code != mongoerr.HashedIndexArray || e.Msg != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}

func TestHashedSpecValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec bson.D
		code mongoerr.Code
	}{
		{"single", spec("a_hashed", d("a", "hashed")), 0},
		{"compound", spec("x", d("a", 1, "b", "hashed", "c", -1)), 0},
		{"on _id", spec("_id_hashed", d("_id", "hashed")), 0},
		{"sparse partial", spec("x", d("a", "hashed"), "sparse", true, "partialFilterExpression", d("b", d("$gt", 5))), 0},
		{"unique", spec("x", d("a", "hashed"), "unique", true), mongoerr.HashedIndexUnique},
		{"unique and two hashed", spec("x", d("a", "hashed", "b", "hashed"), "unique", true), mongoerr.HashedIndexUnique},
		{"two hashed", spec("x", d("a", "hashed", "b", "hashed")), mongoerr.HashedIndexTooManyFields},
		{"hashed and text", spec("x", d("a", "hashed", "b", "text")), mongoerr.CannotCreateIndex},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseSpec(tc.spec)
			if tc.code == 0 && err != nil {
				t.Fatal(err)
			}
			if tc.code != 0 && !mongoerr.Is(err, tc.code) {
				t.Fatalf("want code %d, got %v", tc.code, err)
			}
		})
	}
}

// A hashed and an ascending index on one field are different key patterns.
func TestHashedKeyPatternDiffers(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	mustIndex(t, c, coll, spec("a_1", d("a", 1)), spec("a_hashed", d("a", "hashed")))
	if got := c.IndexByKey(coll, d("a", "hashed")); got == nil || got.Name != "a_hashed" {
		t.Fatalf("IndexByKey(hashed) = %v", got)
	}
	if got := c.IndexByKey(coll, d("a", 1)); got == nil || got.Name != "a_1" {
		t.Fatalf("IndexByKey(1) = %v", got)
	}
}

// Entries follow inserts, updates and deletes; arrays are refused at
// insert, update and index build, leaving no entry behind.
func TestHashedIndexMaintenance(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	mustInsert(t, c, coll, d("_id", 1, "a", "x"), d("_id", 2, "a", bson.A{1}))
	if _, _, err := c.CreateIndexes(coll, []bson.D{spec("a_hashed", d("a", "hashed"))}); !mongoerr.Is(err, mongoerr.HashedIndexArray) {
		t.Fatalf("build over an array: %v", err)
	}
	if _, err := c.Delete(coll, d("_id", 2, "a", bson.A{1})); err != nil {
		t.Fatal(err)
	}
	mustIndex(t, c, coll, spec("a_hashed", d("a", "hashed")))
	idx := c.IndexByKey(coll, d("a", "hashed"))
	if _, err := c.Insert(coll, d("_id", 3, "a", bson.A{})); !mongoerr.Is(err, mongoerr.HashedIndexArray) {
		t.Fatalf("insert of an array: %v", err)
	}
	if _, err := c.Update(coll, d("_id", 1, "a", "x"), d("_id", 1, "a", bson.A{"x"}), d()); !mongoerr.Is(err, mongoerr.HashedIndexArray) {
		t.Fatalf("update to an array: %v", err)
	}
	if n := countHashed(t, coll, idx, "x"); n != 1 {
		t.Fatalf("entries for x: %d", n)
	}
	if _, err := c.Update(coll, d("_id", 1, "a", "x"), d("_id", 1, "a", "y"), d()); err != nil {
		t.Fatal(err)
	}
	if countHashed(t, coll, idx, "x") != 0 || countHashed(t, coll, idx, "y") != 1 {
		t.Fatal("update did not move the entry")
	}
	if _, err := c.Delete(coll, d("_id", 1, "a", "y")); err != nil {
		t.Fatal(err)
	}
	if countHashed(t, coll, idx, "y") != 0 {
		t.Fatal("delete left the entry")
	}
}

// countHashed counts the documents idx finds under the hash of v.
func countHashed(t *testing.T, coll *Collection, idx *Index, v any) int {
	t.Helper()
	keys, _, err := indexKeys(idx, d("a", v))
	if err != nil {
		t.Fatal(err)
	}
	lo := keys[0]
	hi := append(append([]byte(nil), lo...), 0xff)
	it := coll.ScanIndex(idx, lo, hi, false)
	defer it.Close()
	n := 0
	for _, ok := it.Next(); ok; _, ok = it.Next() {
		n++
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

package catalog

import (
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestIndexKeysTable(t *testing.T) {
	tests := []struct {
		name      string
		key       bson.D
		sparse    bool
		doc       bson.D
		want      [][]any // decoded values per key
		multikey  bool
		errCode   mongoerr.Code
		noEntries bool
	}{
		{name: "scalar", key: d("a", 1), doc: d("a", int32(5)), want: [][]any{{int32(5)}}},
		{name: "missing is null", key: d("a", 1), doc: d("b", 1), want: [][]any{{nil}}},
		{name: "dotted", key: d("a.b", 1), doc: d("a", d("b", "x")), want: [][]any{{"x"}}},
		{name: "array elements", key: d("a", 1), doc: d("a", bson.A{int32(1), int32(2), int32(1)}),
			want: [][]any{{int32(1)}, {int32(2)}}, multikey: true},
		{name: "empty array is undefined", key: d("a", 1), doc: d("a", bson.A{}),
			want: [][]any{{bson.Undefined{}}}, multikey: true},
		{name: "array of docs", key: d("a.b", 1), doc: d("a", bson.A{d("b", int32(1)), d("c", int32(2))}),
			want: [][]any{{int32(1)}, {nil}}, multikey: true},
		{name: "array of scalars under path", key: d("a.b", 1), doc: d("a", bson.A{int32(1)}),
			want: [][]any{{nil}}, multikey: true},
		{name: "positional", key: d("a.1", 1), doc: d("a", bson.A{"x", "y"}), want: [][]any{{"y"}}},
		{name: "compound with one array", key: d("a", 1, "b", -1), doc: d("a", bson.A{"x", "y"}, "b", int32(3)),
			want: [][]any{{"x", int32(3)}, {"y", int32(3)}}, multikey: true},
		{name: "parallel arrays", key: d("a", 1, "b", 1), doc: d("a", bson.A{1}, "b", bson.A{2}),
			errCode: CannotIndexParallelArrays},
		{name: "sparse skips missing", key: d("a", 1, "b", 1), sparse: true, doc: d("c", 1), noEntries: true},
		{name: "sparse keeps partly present", key: d("a", 1, "b", 1), sparse: true, doc: d("b", "x"),
			want: [][]any{{nil, "x"}}},
		{name: "sparse keeps explicit null", key: d("a", 1), sparse: true, doc: d("a", nil), want: [][]any{{nil}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			idx := &Index{Name: "x", Key: tc.key, Sparse: tc.sparse}
			keys, multi, err := indexKeys(idx, tc.doc)
			if tc.errCode != 0 {
				if !mongoerr.Is(err, tc.errCode) {
					t.Fatalf("want code %d, got %v", tc.errCode, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.noEntries {
				if keys != nil {
					t.Fatalf("want no entries, got %d", len(keys))
				}
				return
			}
			if multi != tc.multikey {
				t.Errorf("multikey %v", multi)
			}
			var got [][]any
			for _, k := range keys {
				vd, err := keyValueDoc(idx, k)
				if err != nil {
					t.Fatal(err)
				}
				var vals []any
				for _, e := range vd {
					vals = append(vals, e.Value)
				}
				got = append(got, vals)
			}
			if !sameValues(got, tc.want) {
				t.Fatalf("keys %v want %v", got, tc.want)
			}
		})
	}
}

func TestParseSpecValidation(t *testing.T) {
	tests := []struct {
		name string
		spec bson.D
		code mongoerr.Code
	}{
		{"ok", spec("a_1", d("a", 1)), 0},
		{"ok desc float", spec("a_-1", d("a", -1.0)), 0},
		{"ok options", spec("a_1", d("a", 1), "unique", true, "sparse", true, "background", true), 0},
		{"missing key", d("name", "x"), mongoerr.FailedToParse},
		{"missing name", d("key", d("a", 1)), mongoerr.FailedToParse},
		{"empty key", spec("x", d()), mongoerr.CannotCreateIndex},
		{"zero", spec("x", d("a", 0)), mongoerr.CannotCreateIndex},
		{"bool value", spec("x", d("a", true)), mongoerr.CannotCreateIndex},
		{"hashed", spec("x", d("a", "hashed")), 0},
		{"text", spec("x", d("a", "text")), 0},
		{"wildcard", spec("x", d("a", "wildcard")), mongoerr.CannotCreateIndex},
		{"unknown plugin", spec("x", d("a", "nope")), mongoerr.CannotCreateIndex},
		{"unknown option", spec("x", d("a", 1), "foo", 1), mongoerr.InvalidIndexSpecificationOption},
		{"ttl compound", spec("x", d("a", 1, "b", 1), "expireAfterSeconds", 10), mongoerr.CannotCreateIndex},
		{"ttl negative", spec("x", d("a", 1), "expireAfterSeconds", -1), mongoerr.CannotCreateIndex},
		{"ttl wrong type", spec("x", d("a", 1), "expireAfterSeconds", "s"), mongoerr.TypeMismatch},
		{"bad version", spec("x", d("a", 1), "v", 3), mongoerr.CannotCreateIndex},
		{"partial ok", spec("x", d("a", 1), "partialFilterExpression", d("a", d("$gt", 1))), 0},
		{"partial not doc", spec("x", d("a", 1), "partialFilterExpression", 1), mongoerr.TypeMismatch},
		{"reserved _id_ name", spec("_id_", d("a", 1)), mongoerr.BadValue},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			idx, err := parseSpec(tc.spec)
			if tc.code == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if idx.Spec[0].Key != "v" || idx.Spec[1].Key != "key" || idx.Spec[2].Key != "name" {
					t.Fatalf("spec not normalized: %v", idx.Spec)
				}
				return
			}
			if !mongoerr.Is(err, tc.code) {
				t.Fatalf("want code %d, got %v", tc.code, err)
			}
		})
	}
}

func TestCreateIndexesConflicts(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	before, after, err := c.CreateIndexes(coll, []bson.D{spec("a_1", d("a", 1))})
	if err != nil || before != 1 || after != 2 {
		t.Fatalf("create: %d %d %v", before, after, err)
	}
	tests := []struct {
		name string
		spec bson.D
		code mongoerr.Code
	}{
		{"identical is no-op", spec("a_1", d("a", 1)), 0},
		{"same name other key", spec("a_1", d("b", 1)), mongoerr.IndexKeySpecsConflict},
		{"same name other options", spec("a_1", d("a", 1), "unique", true), mongoerr.IndexOptionsConflict},
		{"same key other name", spec("a_asc", d("a", 1)), mongoerr.IndexOptionsConflict},
		{"_id key other name", spec("id", d("_id", 1)), mongoerr.IndexOptionsConflict},
	}
	for _, tc := range tests {
		b, a, err := c.CreateIndexes(coll, []bson.D{tc.spec})
		if tc.code == 0 {
			if err != nil || b != 2 || a != 2 {
				t.Errorf("%s: %d %d %v", tc.name, b, a, err)
			}
			continue
		}
		if !mongoerr.Is(err, tc.code) {
			t.Errorf("%s: want %d got %v", tc.name, tc.code, err)
		}
	}
	if n := len(live(c, coll).Indexes()); n != 2 {
		t.Fatalf("%d indexes", n)
	}
	if idx := c.IndexByKey(live(c, coll), d("a", int32(1))); idx == nil || idx.Name != "a_1" {
		t.Fatal("IndexByKey")
	}
	if c.IndexByKey(live(c, coll), d("a", -1)) != nil {
		t.Fatal("IndexByKey matched a different direction")
	}
}

func TestUniqueBuildOverDuplicatesCreatesNothing(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	for i := 0; i < 2500; i++ { // spans several build batches
		mustInsert(t, c, coll, d("_id", int32(i), "a", int32(i), "b", int32(i%2000)))
	}
	_, _, err := c.CreateIndexes(coll, []bson.D{spec("a_1", d("a", 1)), spec("b_1", d("b", 1), "unique", true)})
	if !mongoerr.Is(err, mongoerr.DuplicateKey) {
		t.Fatalf("want dup key, got %v", err)
	}
	if n := len(live(c, coll).Indexes()); n != 1 {
		t.Fatalf("%d indexes after failed build", n)
	}
	r := mustVerify(t, c)
	if r.IndexEntries != 0 {
		t.Fatalf("%d orphan entries", r.IndexEntries)
	}
	mustIndex(t, c, coll, spec("a_1", d("a", 1), "unique", true))
	r = mustVerify(t, c)
	if r.IndexEntries != 2500 {
		t.Fatalf("built %d entries", r.IndexEntries)
	}
}

func TestScanIndexRangesAndMultikeyDedup(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	mustInsert(t, c, coll,
		d("_id", int32(1), "t", bson.A{int32(1), int32(5)}),
		d("_id", int32(2), "t", int32(3)),
		d("_id", int32(3), "t", bson.A{int32(4), int32(2)}))
	mustIndex(t, c, coll, spec("t_1", d("t", 1)), spec("t_-1", d("t", -1)))
	idx := live(c, coll).Index("t_1")
	if !idx.Multikey {
		t.Fatal("build did not mark multikey")
	}
	tests := []struct {
		lo, hi  []byte
		reverse bool
		want    []any
	}{
		{nil, nil, false, []any{int32(1), int32(3), int32(2)}},
		{nil, nil, true, []any{int32(1), int32(3), int32(2)}},
		{ks(int32(2)), ks(int32(4)), false, []any{int32(3), int32(2)}},
		{ks(int32(5)), nil, false, []any{int32(1)}},
	}
	for i, tc := range tests {
		got := ids(drain(t, coll.ScanIndex(idx, tc.lo, tc.hi, tc.reverse)))
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("case %d: %v want %v", i, got, tc.want)
		}
	}
	desc := live(c, coll).Index("t_-1")
	if got := ids(drain(t, coll.ScanIndex(desc, nil, nil, false))); !reflect.DeepEqual(got, []any{int32(1), int32(3), int32(2)}) {
		t.Errorf("descending index order %v", got)
	}
	idIdx := live(c, coll).Indexes()[0]
	if got := ids(drain(t, coll.ScanIndex(idIdx, ks(int32(2)), nil, false))); !reflect.DeepEqual(got, []any{int32(2), int32(3)}) {
		t.Errorf("_id_ range %v", got)
	}
}

func TestSparseAndPartialIndexes(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	mustIndex(t, c, coll, spec("s_1", d("s", 1), "unique", true, "sparse", true),
		spec("p_1", d("p", 1), "unique", true, "partialFilterExpression", d("active", true)))
	mustInsert(t, c, coll,
		d("_id", 1), d("_id", 2), // both lack s: sparse unique allows it
		d("_id", 3, "p", "x", "active", false),
		d("_id", 4, "p", "x", "active", true))
	if _, err := c.Insert(coll, d("_id", 5, "p", "x", "active", true)); !mongoerr.Is(err, mongoerr.DuplicateKey) {
		t.Fatalf("partial unique: %v", err)
	}
	if got := drain(t, coll.ScanIndex(live(c, coll).Index("p_1"), nil, nil, false)); len(got) != 1 {
		t.Fatalf("partial index holds %d docs", len(got))
	}
	if got := drain(t, coll.ScanIndex(live(c, coll).Index("s_1"), nil, nil, false)); len(got) != 0 {
		t.Fatalf("sparse index holds %d docs", len(got))
	}
	// Updating a doc into the partial filter adds its entry.
	old := d("_id", 3, "p", "y", "active", false)
	if _, err := c.Update(coll, d("_id", 3, "p", "x", "active", false), old, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Update(coll, old, d("_id", 3, "p", "y", "active", true), nil); err != nil {
		t.Fatal(err)
	}
	if got := drain(t, coll.ScanIndex(live(c, coll).Index("p_1"), nil, nil, false)); len(got) != 2 {
		t.Fatalf("partial index holds %d docs after update", len(got))
	}
	mustVerify(t, c)
}

func TestNonUniqueMissingFieldsAllowed(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	mustIndex(t, c, coll, spec("u_1", d("u", 1), "unique", true))
	mustInsert(t, c, coll, d("_id", 1))
	_, err := c.Insert(coll, d("_id", 2))
	var dk *DuplicateKeyError
	if !mongoerrAs(err, &dk) || dk.Err.Msg != "E11000 duplicate key error collection: db.c index: u_1 dup key: { u: null }" {
		t.Fatalf("two docs missing a unique field: %v", err)
	}
}

func TestDropIndexes(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	mustIndex(t, c, coll, spec("a_1", d("a", 1)), spec("b_1", d("b", 1)))
	mustInsert(t, c, coll, d("_id", 1, "a", 1, "b", 2))
	if err := c.DropIndexes(coll, []string{"nope"}); !mongoerr.Is(err, mongoerr.IndexNotFound) {
		t.Fatalf("drop missing: %v", err)
	}
	if err := c.DropIndexes(coll, []string{"_id_"}); !mongoerr.Is(err, mongoerr.InvalidOptions) {
		t.Fatalf("drop _id_: %v", err)
	}
	if err := c.DropIndexes(coll, []string{"a_1"}); err != nil {
		t.Fatal(err)
	}
	if r := mustVerify(t, c); r.IndexEntries != 1 {
		t.Fatalf("%d entries after dropping a_1", r.IndexEntries)
	}
	if err := c.DropIndexes(coll, []string{"*"}); err != nil {
		t.Fatal(err)
	}
	idxs := live(c, coll).Indexes()
	if len(idxs) != 1 || !idxs[0].IsID() {
		t.Fatalf("after *: %v", idxs)
	}
	if r := mustVerify(t, c); r.IndexEntries != 0 {
		t.Fatalf("%d entries left", r.IndexEntries)
	}
}

// sameValues compares decoded keys by BSON order (keystring may widen numbers).
func sameValues(a, b [][]any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if bsonx.Compare(a[i][j], b[i][j]) != 0 {
				return false
			}
		}
	}
	return true
}

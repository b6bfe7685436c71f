package catalog

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/storage/keystring"
)

func TestWildcardKeysTable(t *testing.T) {
	tests := []struct {
		name     string
		key      string
		doc      bson.D
		want     [][2]any // (path, value) pairs, in key order
		multikey bool
	}{
		{"scalars skip _id", "$**", d("_id", 1, "a", int32(1), "b", "x"), [][2]any{{"a", int32(1)}, {"b", "x"}}, false},
		{"nested", "$**", d("a", d("b", int32(1), "c", d())), [][2]any{{"a.b", int32(1)}, {"a.c", bson.D{}}}, false},
		{"array elements at the array's path", "$**", d("a", bson.A{int32(2), d("x", int32(3)), bson.A{int32(4)}}),
			[][2]any{{"a", int32(2)}, {"a", bson.A{int32(4)}}, {"a.x", int32(3)}}, true},
		{"prefix", "a.$**", d("a", d("x", int32(1)), "b", int32(2)), [][2]any{{"a.x", int32(1)}}, false},
		{"prefix scalar", "a.$**", d("a", int32(5)), [][2]any{{"a", int32(5)}}, false},
		{"prefix missing", "a.$**", d("b", int32(5)), nil, false},
		{"projection in", "$**+in", d("_id", int32(1), "a", d("b", int32(1), "c", int32(2)), "z", int32(3)), [][2]any{{"_id", int32(1)}, {"a.b", int32(1)}}, false},
		{"projection out", "$**+out", d("_id", 1, "a", d("b", int32(1), "c", int32(2)), "z", int32(3)), [][2]any{{"a.c", int32(2)}, {"z", int32(3)}}, false},
		{"projection partial skips scalars", "$**+in", d("a", bson.A{int32(1), d("b", int32(4))}), [][2]any{{"a.b", int32(4)}}, true},
	}
	projs := map[string]bson.D{"$**+in": d("a.b", 1, "_id", 1), "$**+out": d("a.b", 0)}
	for _, tc := range tests {
		sp := spec("w", d(tc.key, 1))
		if p, ok := projs[tc.key]; ok {
			sp = spec("w", d("$**", 1), "wildcardProjection", p)
		}
		idx, err := parseSpec(sp)
		if err != nil {
			t.Fatal(err)
		}
		keys, multikey, err := indexKeys(idx, tc.doc)
		if err != nil || multikey != tc.multikey || len(keys) != len(tc.want) {
			t.Errorf("%s: %d keys multikey %v err %v, want %d %v", tc.name, len(keys), multikey, err, len(tc.want), tc.multikey)
			continue
		}
		for i, w := range tc.want {
			exp := keystring.AppendValue(keystring.AppendValue(nil, w[0], false), w[1], false)
			if string(keys[i]) != string(exp) {
				t.Errorf("%s: key %d is not %v", tc.name, i, w)
			}
		}
	}
}

func TestWildcardSpecValidation(t *testing.T) {
	tests := []struct {
		spec bson.D
		code mongoerr.Code
	}{
		{spec("w", d("$**", 1), "unique", true), mongoerr.CannotCreateIndex},
		{spec("w", d("$**", 1), "sparse", true), mongoerr.CannotCreateIndex},
		{spec("w", d("$**", 1), "expireAfterSeconds", 5), mongoerr.CannotCreateIndex},
		{spec("w", d("a.$**", 1, "b.$**", 1)), mongoerr.CannotCreateIndex}, // compound: indexwildcard_compound_test.go
		{spec("w", d("a.$**", 1)), 0},
		{spec("w", d("$**", "text")), 0},
		{spec("w", d("a.$**", 1), "wildcardProjection", d("b", 1)), mongoerr.FailedToParse},
		{spec("w", d("$**", 1), "wildcardProjection", d("b", 1, "c", 0)), mongoerr.FailedToParse},
		{spec("w", d("$**", 1), "wildcardProjection", d("b", 1, "_id", 0)), 0},
	}
	for _, tc := range tests {
		_, err := parseSpec(tc.spec)
		if (tc.code == 0 && err != nil) || (tc.code != 0 && !mongoerr.Is(err, tc.code)) {
			t.Errorf("%v: %v, want %d", tc.spec, err, tc.code)
		}
	}
	idx, _ := parseSpec(spec("w", d("a.$**", 1)))
	for path, want := range map[string]bool{"a": true, "a.b": true, "ab": false, "b": false} {
		if idx.Covers(path) != want {
			t.Errorf("a.$** covers %s = %v", path, !want)
		}
	}
	all, _ := parseSpec(spec("w", d("$**", 1)))
	if all.Covers("_id") || !all.Covers("x.y") {
		t.Error("$** coverage of _id / x.y")
	}
}

func TestWildcardProjectionConflicts(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	if _, _, err := c.CreateIndexes(coll, []bson.D{spec("w", d("$**", 1), "wildcardProjection", d("a", 1))}); err != nil {
		t.Fatal(err)
	}
	_, _, err := c.CreateIndexes(live(c, coll), []bson.D{spec("w", d("$**", 1), "wildcardProjection", d("b", 1))})
	if !mongoerr.Is(err, mongoerr.IndexOptionsConflict) {
		t.Fatalf("same name, other projection: %v", err)
	}
	if _, after, err := c.CreateIndexes(live(c, coll), []bson.D{spec("w", d("$**", 1), "wildcardProjection", d("a", 1))}); err != nil || after != 2 {
		t.Fatalf("identical: %d %v", after, err)
	}
}

package router

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func d(kv ...any) bson.D {
	out := bson.D{}
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, bson.E{Key: kv[i].(string), Value: kv[i+1]})
	}
	return out
}

// js renders v as relaxed extended JSON.
func js(v any) string {
	b, err := bson.MarshalExtJSON(bson.D{{Key: "v", Value: v}}, false, false)
	if err != nil {
		return err.Error()
	}
	return string(b[len(`{"v":`) : len(b)-1])
}

func TestCompareBySort(t *testing.T) {
	spec := d("a", 1, "b.c", -1)
	for _, tc := range []struct {
		x, y bson.D
		want int
	}{
		{d("a", 1), d("a", 2), -1},
		{d("a", 1, "b", d("c", 5)), d("a", 1, "b", d("c", 3)), -1}, // b.c descending
		{d(), d("a", int32(0)), -1},                                // missing sorts as null, before numbers
		{d("a", bson.A{5, 1}), d("a", 2), -1},                      // ascending: an array's smallest element
		{d("a", 1.0), d("a", int64(1)), 0},
	} {
		if got := compareBySort(tc.x, tc.y, spec); got != tc.want {
			t.Errorf("compareBySort(%v, %v) = %d, want %d", tc.x, tc.y, got, tc.want)
		}
	}
}

func TestSortProjection(t *testing.T) {
	for _, tc := range []struct {
		proj, sort  bson.D
		doc         bson.D
		sent, after string
	}{
		// Inclusion without the sort field: added, then removed.
		{d("g", 1, "_id", 0), d("x", -1), d("g", 1, "x", 5), `{"g":1,"_id":0,"x":1}`, `{"g":1}`},
		// Covered by an included parent: unchanged.
		{d("a", 1), d("a.b", 1), d("_id", 1, "a", d("b", 2)), `{"a":1}`, `{"_id":1,"a":{"b":2}}`},
		// Nested sort path: its emptied parent goes too.
		{d("g", 1), d("a.b", 1), d("_id", 1, "g", 1, "a", d("b", 2)), `{"g":1,"a.b":1}`, `{"_id":1,"g":1}`},
		// Excluded sort field: sent, then removed.
		{d("x", 0), d("x", 1), d("_id", 1, "x", 3, "y", 4), `{}`, `{"_id":1,"y":4}`},
		// _id excluded by an inclusion projection but sorted on.
		{d("g", 1, "_id", 0), d("_id", 1), d("_id", 7, "g", 1), `{"g":1}`, `{"g":1}`},
	} {
		sent, strip, keep, err := sortProjection(tc.proj, tc.sort)
		if err != nil {
			t.Fatalf("sortProjection(%v, %v): %v", tc.proj, tc.sort, err)
		}
		if got := js(sent); got != tc.sent {
			t.Errorf("sortProjection(%v, %v) sends %s, want %s", tc.proj, tc.sort, got, tc.sent)
		}
		if got := js(stripPaths(tc.doc, strip, keep)); got != tc.after {
			t.Errorf("%v projected by %v sorted by %v: %s, want %s", tc.doc, tc.proj, tc.sort, got, tc.after)
		}
	}
	if _, _, _, err := sortProjection(d("x", d("$slice", 2)), d("x", 1)); err == nil {
		t.Error("a computed projection of the sort field was accepted")
	}
}

func TestPieceStmtIDs(t *testing.T) {
	cmd := d("insert", "c", "documents", bson.A{d("a", 0), d("a", 1), d("a", 2)}, "txnNumber", int64(4))
	docs := cmd[1].Value.(bson.A)
	ids := stmtIDs(cmd, len(docs))
	p := piece(cmd, "documents", docs, []int{0, 2}, ids)
	if s := js(p); s != `{"insert":"c","documents":[{"a":0},{"a":2}],"txnNumber":4,"stmtIds":[0,2]}` {
		t.Fatalf("piece = %s", s)
	}
	if stmtIDs(d("insert", "c"), 3) != nil {
		t.Fatal("stmtIds without a txnNumber")
	}
}

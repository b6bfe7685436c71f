package router

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
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

func TestMergeGroups(t *testing.T) {
	group := d("_id", "$g", "n", d("$sum", 1), "lo", d("$min", "$x"), "hi", d("$max", "$x"))
	got := mergeGroups(group, []bson.D{
		d("_id", 1, "n", int32(2), "lo", 5, "hi", 9),
		d("_id", 2, "n", int32(1), "lo", 1, "hi", 1),
		d("_id", 1.0, "n", int64(3), "lo", 3, "hi", 7),
	})
	if s := js(got); s != `[{"_id":1,"n":5,"lo":3,"hi":9},{"_id":2,"n":1,"lo":1,"hi":1}]` {
		t.Fatalf("mergeGroups = %s", s)
	}
	if v := addNumbers(int32(1<<30), int32(1<<30)); v != int64(1<<31) {
		t.Errorf("int32 overflow: %T %v", v, v)
	}
	if v := addNumbers(int32(1), 0.5); v != 1.5 {
		t.Errorf("double: %v", v)
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

// TestGroupBudget: the partial groups a router holds are bounded by the
// $group memory parameter; past it the aggregate fails with 292.
func TestGroupBudget(t *testing.T) {
	b := newGroupBudget()
	b.limit = 1000
	g := bson.D{{Key: "_id", Value: "abcdefgh"}, {Key: "n", Value: int64(1)}}
	held := 0
	var err error
	for held < 1000 && err == nil {
		err = b.add([]bson.D{g})
		held++
	}
	if !mongoerr.Is(err, mongoerr.QueryExceededMemoryLimitNoDiskUseAllowed) {
		t.Fatalf("after %d groups: %v, want QueryExceededMemoryLimitNoDiskUseAllowed", held, err)
	}
	if held < 2 || held > 30 {
		t.Fatalf("limit hit after %d groups of about %d bytes, want about 1000 bytes' worth", held, b.size(g))
	}
}

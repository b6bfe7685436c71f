package exec

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// TestOplogReverseFilterThenLimit: {$natural: -1} with a filter and a limit
// returns the newest matching entries, filtering before limiting, across
// more than one read batch.
func TestOplogReverseFilterThenLimit(t *testing.T) {
	e := testEngine(t, nil)
	n := oplogBatch + 50
	docs := make([]bson.D, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}}
	}
	if res := e.Insert("t", "log", docs, true, nil); len(res.Errors) > 0 {
		t.Fatal(res.Errors[0].Err)
	}
	filter := bson.D{{Key: "op", Value: "i"}, {Key: "ns", Value: "t.log"}}
	it, _, err := e.Find("local", "oplog.rs", FindParams{Filter: filter, Sort: bson.D{{Key: "$natural", Value: -1}}, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var got []int32
	for {
		r, ok := it.Next()
		if !ok {
			if err := it.Err(); err != nil {
				t.Fatal(err)
			}
			break
		}
		d, _ := r.decoded()
		var o bson.D
		for _, f := range d {
			if f.Key == "o" {
				o = f.Value.(bson.D)
			}
		}
		got = append(got, o[0].Value.(int32))
	}
	want := []int32{int32(n - 1), int32(n - 2), int32(n - 3)}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("newest inserts = %v, want %v", got, want)
	}
	// A filter matching only old entries must still find them past the
	// first read batch.
	old := bson.D{{Key: "o._id", Value: int32(0)}}
	it2, _, err := e.Find("local", "oplog.rs", FindParams{Filter: old, Sort: bson.D{{Key: "$natural", Value: -1}}, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer it2.Close()
	if r, ok := it2.Next(); !ok {
		t.Fatalf("oldest insert not found scanning backwards: %v %v", r, it2.Err())
	}
}

// TestOplogForwardTSBound: the fetcher's {ts: {$gte|$gt: T}} is answered by
// where the scan starts (no per-entry match), and any other filter on the
// oplog is still matched entry by entry.
func TestOplogForwardTSBound(t *testing.T) {
	e := testEngine(t, nil)
	docs := make([]bson.D, 5)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}}
	}
	if res := e.Insert("t", "fwd", docs, true, nil); len(res.Errors) > 0 {
		t.Fatal(res.Errors[0].Err)
	}
	all := oplogTS(t, e, nil)
	if len(all) < 5 {
		t.Fatalf("oplog holds %d entries", len(all))
	}
	mid := all[len(all)-3]
	bound := func(op string, v any) bson.D { return bson.D{{Key: "ts", Value: bson.D{{Key: op, Value: v}}}} }
	tests := []struct {
		name     string
		filter   bson.D
		n        int
		boundOff bool // the filter is the scan's bound alone
	}{
		{"gte", bound("$gte", mid), 3, true},
		{"gt", bound("$gt", mid), 2, true},
		{"gt and lt", bson.D{{Key: "ts", Value: bson.D{{Key: "$gt", Value: all[0]}, {Key: "$lt", Value: mid}}}}, len(all) - 4, false},
		{"gte and op", append(bound("$gte", mid), bson.E{Key: "op", Value: "none"}), 0, false},
		{"gte non-timestamp", bound("$gte", int64(0)), 0, false},
	}
	for _, tc := range tests {
		if got := isTSLowerBoundOnly(tc.filter); got != tc.boundOff {
			t.Errorf("%s: isTSLowerBoundOnly = %v", tc.name, got)
		}
		if got := oplogTS(t, e, tc.filter); len(got) != tc.n {
			t.Errorf("%s: %d entries, want %d", tc.name, len(got), tc.n)
		}
	}
}

// oplogTS returns the ts of every oplog entry filter selects, in order.
func oplogTS(t *testing.T, e *Engine, filter bson.D) []bson.Timestamp {
	t.Helper()
	it, _, err := e.Find("local", "oplog.rs", FindParams{Filter: filter})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []bson.Timestamp
	for range 10000 {
		r, ok := it.Next()
		if !ok {
			if err := it.Err(); err != nil {
				t.Fatal(err)
			}
			return out
		}
		tt, i, _ := bson.Raw(r.Raw).Lookup("ts").TimestampOK()
		out = append(out, bson.Timestamp{T: tt, I: i})
	}
	t.Fatal("oplog scan did not end")
	return nil
}

// TestOplogScanIsTailable: a forward oplog scan returns false at the end
// of visible entries and yields the entries written since when called
// again, through the filter and projection stages (iterx's rule for
// tailable iterators and their wrappers); OplogWaiter finds its source.
func TestOplogScanIsTailable(t *testing.T) {
	e := testEngine(t, nil)
	insert := func(id int32) {
		t.Helper()
		if res := e.Insert("t", "tail", []bson.D{{{Key: "_id", Value: id}}}, true, nil); len(res.Errors) > 0 {
			t.Fatal(res.Errors[0].Err)
		}
	}
	insert(1)
	p := FindParams{Filter: bson.D{{Key: "ns", Value: "t.tail"}}, Projection: bson.D{{Key: "o", Value: 1}}}
	it, _, err := e.Find("local", "oplog.rs", p)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if e.OplogWaiter(it) == nil {
		t.Fatal("OplogWaiter found no oplog source under the wrappers")
	}
	read := func() int {
		t.Helper()
		n := 0
		for _, ok := it.Next(); ok; _, ok = it.Next() {
			n++
		}
		if err := it.Err(); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := read(); n != 1 {
		t.Fatalf("first read: %d entries, want 1", n)
	}
	insert(2)
	insert(3)
	if n := read(); n != 2 {
		t.Fatalf("after two more inserts: %d entries, want 2", n)
	}
}

// TestOplogCursorLosesTruncatedPosition: a tailing oplog cursor whose last
// returned entry is truncated away (a rollback, an initial sync) fails with
// CappedPositionLost instead of going on with entries that do not follow
// the ones it returned; without truncation it keeps tailing.
func TestOplogCursorLosesTruncatedPosition(t *testing.T) {
	e := testEngine(t, nil)
	insert := func(ids ...int32) {
		t.Helper()
		docs := make([]bson.D, len(ids))
		for i, id := range ids {
			docs[i] = bson.D{{Key: "_id", Value: id}}
		}
		if res := e.Insert("t", "c", docs, true, nil); len(res.Errors) > 0 {
			t.Fatal(res.Errors[0].Err)
		}
	}
	insert(1, 2, 3)
	it, _, err := e.Find("local", "oplog.rs", FindParams{})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	drain := func() int {
		n := 0
		for _, ok := it.Next(); ok; _, ok = it.Next() {
			n++
		}
		return n
	}
	if n := drain(); n == 0 || it.Err() != nil {
		t.Fatalf("first read: %d entries, err %v", n, it.Err())
	}
	insert(4)
	if n := drain(); n != 1 || it.Err() != nil {
		t.Fatalf("tailing: %d entries, err %v; want 1, nil", n, it.Err())
	}
	first := e.cat.Oplog().First()
	if _, err := e.cat.Apply(func(w *catalog.Writer) error {
		_, err := w.TruncateOplogAfter(first)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	insert(5)
	if n := drain(); n != 0 || !mongoerr.Is(it.Err(), mongoerr.CappedPositionLost) {
		t.Fatalf("after truncation: %d entries, err %v; want 0, CappedPositionLost", n, it.Err())
	}
}

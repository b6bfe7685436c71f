package exec

import (
	"errors"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// evenA owns the documents whose a is even; a document without an int a
// is an error.
type evenA struct{ calls int }

func (f *evenA) Owns(doc bson.D) (bool, error) {
	f.calls++
	for _, e := range doc {
		if e.Key == "a" {
			if n, ok := e.Value.(int32); ok {
				return n%2 == 0, nil
			}
		}
	}
	return false, errors.New("no a")
}

func ownTestEngine(t *testing.T) *Engine {
	docs := make([]bson.D, 10)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "a", Value: int32(i)}, {Key: "g", Value: int32(i % 3)}}
	}
	return testEngine(t, docs)
}

func ownedIDList(t *testing.T, it Iterator) string {
	t.Helper()
	defer it.Close()
	var out []any
	for r, ok := it.Next(); ok; r, ok = it.Next() {
		d, err := r.decoded()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d[0].Value)
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(out)
}

// TestOwnershipFilterFind: the filter applies under sort, skip and limit
// (a limit counts owned documents only), with and without a query filter
// and on an index scan; nil sees everything.
func TestOwnershipFilterFind(t *testing.T) {
	e := ownTestEngine(t)
	cases := []struct {
		p    FindParams
		want string
	}{
		{FindParams{}, "[0 2 4 6 8]"},
		{FindParams{Limit: 2}, "[0 2]"},
		{FindParams{Skip: 1, Limit: 2}, "[2 4]"},
		{FindParams{Sort: bson.D{{Key: "a", Value: -1}}, Limit: 3}, "[8 6 4]"},
		{FindParams{Filter: bson.D{{Key: "g", Value: 0}}}, "[0 6]"},
		{FindParams{Filter: bson.D{{Key: "a", Value: bson.D{{Key: "$gte", Value: 5}}}}}, "[6 8]"},
		{FindParams{Filter: bson.D{{Key: "_id", Value: 3}}}, "[]"},
	}
	for _, c := range cases {
		c.p.Owned = &evenA{}
		it, _, err := e.Find("t", "c", c.p)
		if err != nil {
			t.Fatal(err)
		}
		if got := ownedIDList(t, it); got != c.want {
			t.Errorf("%+v: %s, want %s", c.p, got, c.want)
		}
	}
	it, _, err := e.Find("t", "c", FindParams{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := ownedIDList(t, it); got != "[0 1 2]" {
		t.Errorf("unfiltered: %s", got)
	}
}

// TestOwnershipFilterCountDistinctAggregate: count never takes the
// document-count fast path when filtering; distinct and aggregate read
// only owned documents; a filter error ends the read.
func TestOwnershipFilterCountDistinctAggregate(t *testing.T) {
	e := ownTestEngine(t)
	f := &evenA{}
	if n, err := e.CountAt(nil, f, "t", "plain", nil, 0, 0, nil, Collation{}); err != nil || n != 5 || f.calls != 10 {
		t.Fatalf("count {}: %d %v (%d calls)", n, err, f.calls)
	}
	if n, err := e.CountAt(nil, &evenA{}, "t", "plain", nil, 1, 3, nil, Collation{}); err != nil || n != 3 {
		t.Fatalf("count skip 1 limit 3: %d %v", n, err)
	}
	if n, err := e.CountAt(nil, nil, "t", "plain", nil, 0, 0, nil, Collation{}); err != nil || n != 10 {
		t.Fatalf("unfiltered count: %d %v", n, err)
	}
	vals, err := e.DistinctAt(nil, &evenA{}, "t", "c", "a", bson.D{{Key: "g", Value: 1}}, Collation{})
	if err != nil || fmt.Sprint(vals) != "[4]" {
		t.Fatalf("distinct: %v %v", vals, err)
	}
	group := bson.A{bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}}}
	it, err := e.Aggregate("t", "c", AggregateParams{Pipeline: group, Owned: &evenA{}})
	if err != nil {
		t.Fatal(err)
	}
	r, ok := it.Next()
	if d, _ := r.decoded(); !ok || len(d) != 2 || fmt.Sprint(d[1].Value) != "5" {
		t.Fatalf("$group: %v", d)
	}
	it.Close()
	if res := e.Insert("t", "plain", []bson.D{{{Key: "_id", Value: "x"}}}, true, nil); len(res.Errors) > 0 {
		t.Fatal(res.Errors[0].Err)
	}
	if _, err := e.CountAt(nil, &evenA{}, "t", "plain", nil, 0, 0, nil, Collation{}); err == nil || err.Error() != "no a" {
		t.Fatalf("filter error: %v", err)
	}
}

// TestOwnershipFilterExplain: SHARDING_FILTER sits above the scan, below
// sort and limit.
func TestOwnershipFilterExplain(t *testing.T) {
	e := ownTestEngine(t)
	qp, err := e.ExplainFind("t", "c", FindParams{Filter: bson.D{{Key: "a", Value: 2}}, Sort: bson.D{{Key: "g", Value: 1}}, Limit: 1, Owned: &evenA{}})
	if err != nil {
		t.Fatal(err)
	}
	var wp bson.D
	for _, el := range qp {
		if el.Key == "winningPlan" {
			wp = el.Value.(bson.D)
		}
	}
	var stages []any
	for st := wp; st != nil; {
		stages = append(stages, st[0].Value)
		next := st
		st = nil
		for _, el := range next {
			if el.Key == "inputStage" {
				st = el.Value.(bson.D)
			}
		}
	}
	if got := fmt.Sprint(stages); got != "[LIMIT SORT SHARDING_FILTER FETCH IXSCAN]" {
		t.Fatalf("stages %s: %v", got, wp)
	}
	_, stats, err := e.ExplainFindStats("t", "c", FindParams{Owned: &evenA{}})
	if err != nil || fmt.Sprint(stats[1]) != "{nReturned 5}" {
		t.Fatalf("executionStats %v %v", stats, err)
	}
}

// rawEvenA is evenA deciding from stored bytes too.
type rawEvenA struct {
	evenA
	rawCalls int
}

func (f *rawEvenA) OwnsRaw(raw bson.Raw) (bool, error) {
	f.rawCalls++
	n, ok := raw.Lookup("a").Int32OK()
	if !ok {
		return false, errors.New("no a")
	}
	return n%2 == 0, nil
}

// TestOwnershipFilterRaw: a RawOwner decides rows not decoded yet (a
// find without a query filter) from their bytes, and decoded rows (a
// query filter decoded them) from the document.
func TestOwnershipFilterRaw(t *testing.T) {
	e := ownTestEngine(t)
	f := &rawEvenA{}
	it, _, err := e.Find("t", "c", FindParams{Owned: f})
	if err != nil {
		t.Fatal(err)
	}
	if got := ownedIDList(t, it); got != "[0 2 4 6 8]" || f.rawCalls != 10 || f.calls != 0 {
		t.Fatalf("find {}: %s, %d raw and %d decoded decisions", got, f.rawCalls, f.calls)
	}
	f = &rawEvenA{}
	it, _, err = e.Find("t", "c", FindParams{Filter: bson.D{{Key: "g", Value: 0}}, Owned: f})
	if err != nil {
		t.Fatal(err)
	}
	if got := ownedIDList(t, it); got != "[0 6]" || f.rawCalls != 0 || f.calls != 4 {
		t.Fatalf("find {g: 0}: %s, %d raw and %d decoded decisions", got, f.rawCalls, f.calls)
	}
}

package exec

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
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
		r, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if r == nil {
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
	if r, err := it2.Next(); err != nil || r == nil {
		t.Fatalf("oldest insert not found scanning backwards: %v %v", r, err)
	}
}

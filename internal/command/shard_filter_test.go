package command

import (
	"context"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/exec"
)

// evenIDs owns the documents whose _id is even.
type evenIDs struct{}

func (evenIDs) Owns(doc bson.D) (bool, error) {
	id, _ := bsonx.Get(doc, "_id")
	n, _ := id.(int32)
	return n%2 == 0, nil
}

// filteringVersioner passes every request and filters versioned ones.
type filteringVersioner struct{ filtered []string }

func (f *filteringVersioner) CheckShardVersion(context.Context, string, bson.D) error { return nil }

func (f *filteringVersioner) ReadFilter(_ string, cmd bson.D) (exec.OwnershipFilter, error) {
	if _, ok := bsonx.Get(cmd, "shardVersion"); !ok {
		return nil, nil
	}
	f.filtered = append(f.filtered, cmd[0].Key)
	return evenIDs{}, nil
}

// TestReadFilterWiring: the dispatcher passes a shard's ownership filter
// to find, count, distinct, aggregate and explain of a versioned read;
// unversioned reads and writes are not filtered.
func TestReadFilterWiring(t *testing.T) {
	d, cat, coll := newReadTestDispatcher(t, nil)
	for i := range 6 {
		if _, err := cat.Insert(coll, bson.D{{Key: "_id", Value: int32(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	f := &filteringVersioner{}
	d.SetShardVersioner(f)
	sv := bson.E{Key: "shardVersion", Value: bson.D{}}
	group := bson.A{bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}}}
	for _, tc := range []struct {
		cmd        bson.D
		path       []string
		plain, own string
	}{
		{bson.D{{Key: "find", Value: "c"}}, []string{"cursor", "firstBatch"}, "6", "3"},
		{bson.D{{Key: "count", Value: "c"}}, []string{"n"}, "6", "3"},
		{bson.D{{Key: "distinct", Value: "c"}, {Key: "key", Value: "_id"}}, []string{"values"}, "6", "3"},
		{bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: group}, {Key: "cursor", Value: bson.D{}}}, []string{"cursor", "firstBatch"}, "[n 6]", "[n 3]"},
		{bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "c"}, sv}}}, []string{"executionStats", "nReturned"}, "", "3"},
	} {
		for _, versioned := range []bool{false, true} {
			cmd, want := tc.cmd, tc.plain
			if versioned && cmd[0].Key != "explain" {
				cmd = append(append(bson.D{}, cmd...), sv)
			}
			if versioned {
				want = tc.own
			} else if want == "" {
				continue
			}
			reply, err := runRead(d, cmd)
			if err != nil {
				t.Fatalf("%v: %v", cmd, err)
			}
			if got := summarize(reply, tc.path); got != want {
				t.Errorf("%v: %s, want %s (%v)", cmd, got, want, reply)
			}
		}
	}
	if fmt.Sprint(f.filtered) != "[find count distinct aggregate find]" {
		t.Fatalf("filtered %v", f.filtered)
	}
	f.filtered = nil
	if _, err := runRead(d, bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: int32(7)}}}}, sv}); err != nil {
		t.Fatal(err)
	}
	if len(f.filtered) != 0 {
		t.Fatalf("insert filtered: %v", f.filtered)
	}
}

// summarize renders the value at path: an array's length, a group's n,
// a number as is.
func summarize(reply bson.D, path []string) string {
	var v any = reply
	for _, p := range path {
		d, _ := v.(bson.D)
		v, _ = bsonx.Get(d, p)
	}
	switch x := v.(type) {
	case bson.A:
		if len(x) == 1 {
			if raw, ok := x[0].(bson.Raw); ok {
				if n := raw.Lookup("n"); n.Type != 0 {
					return fmt.Sprintf("[n %v]", n.AsInt64())
				}
			}
		}
		return fmt.Sprint(len(x))
	}
	return fmt.Sprint(v)
}

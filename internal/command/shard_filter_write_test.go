package command

import (
	"context"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// TestWriteFilterWiring: a versioned update, delete or findAndModify
// matches only the documents the shard's filter owns (evenIDs); the same
// write without a shardVersion matches every document.
func TestWriteFilterWiring(t *testing.T) {
	sv := bson.E{Key: "shardVersion", Value: bson.D{}}
	inc := bson.D{{Key: "$inc", Value: bson.D{{Key: "k", Value: 1}}}}
	cases := []struct {
		name       string
		cmd        bson.D
		field      string
		plain, own string
	}{
		{"update multi", bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{
			bson.D{{Key: "q", Value: bson.D{}}, {Key: "u", Value: inc}, {Key: "multi", Value: true}}}}}, "n", "6", "3"},
		{"update one", bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{
			bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: int32(1)}}}, {Key: "u", Value: inc}}}}}, "n", "1", "0"},
		{"delete many", bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{
			bson.D{{Key: "q", Value: bson.D{}}, {Key: "limit", Value: int32(0)}}}}}, "n", "6", "3"},
		{"delete one", bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{
			bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: int32(3)}}}, {Key: "limit", Value: int32(1)}}}}}, "n", "1", "0"},
		{"findAndModify sorted", bson.D{{Key: "findAndModify", Value: "c"}, {Key: "query", Value: bson.D{}},
			{Key: "sort", Value: bson.D{{Key: "_id", Value: -1}}}, {Key: "remove", Value: true}}, "value", "5", "4"},
	}
	for _, tc := range cases {
		for _, versioned := range []bool{false, true} {
			d, cat, coll := newReadTestDispatcher(t, nil)
			for i := range 6 {
				if _, err := cat.Insert(coll, bson.D{{Key: "_id", Value: int32(i)}}); err != nil {
					t.Fatal(err)
				}
			}
			d.SetShardVersioner(&filteringVersioner{})
			cmd, want := tc.cmd, tc.plain
			if versioned {
				cmd, want = append(append(bson.D{}, cmd...), sv), tc.own
			}
			reply, err := runRead(d, cmd)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			v, _ := bsonx.Get(reply, tc.field)
			if doc, ok := v.(bson.D); ok {
				v, _ = bsonx.Get(doc, "_id")
			}
			if got := fmt.Sprint(v); got != want {
				t.Errorf("%s (versioned %v): %s %s, want %s (%v)", tc.name, versioned, tc.field, got, want, reply)
			}
		}
	}
}

// staleFilterer fails every filter with StaleConfig (the metadata moved
// between the version check and the write).
type staleFilterer struct{ filteringVersioner }

func (staleFilterer) ReadFilter(string, bson.D) (exec.OwnershipFilter, error) {
	return nil, mongoerr.New(mongoerr.StaleConfig, "moved")
}

func (staleFilterer) CheckShardVersion(context.Context, string, bson.D) error { return nil }

// TestWriteFilterStale: a filter refused after the check is a write
// error per statement (first of an ordered batch, each of an unordered
// one); nothing is written.
func TestWriteFilterStale(t *testing.T) {
	d, cat, coll := newReadTestDispatcher(t, nil)
	if _, err := cat.Insert(coll, bson.D{{Key: "_id", Value: int32(0)}}); err != nil {
		t.Fatal(err)
	}
	d.SetShardVersioner(staleFilterer{})
	del := bson.D{{Key: "q", Value: bson.D{}}, {Key: "limit", Value: int32(0)}}
	for ordered, want := range map[bool]int{true: 1, false: 2} {
		reply, err := runRead(d, bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{del, del}},
			{Key: "ordered", Value: ordered}, {Key: "shardVersion", Value: bson.D{}}})
		if err != nil {
			t.Fatal(err)
		}
		errs, _ := bsonx.Get(reply, "writeErrors")
		arr, _ := errs.(bson.A)
		n, _ := bsonx.Get(reply, "n")
		if len(arr) != want || fmt.Sprint(n) != "0" {
			t.Fatalf("ordered %v: %v", ordered, reply)
		}
		if code, _ := bsonx.Get(arr[0].(bson.D), "code"); code != int32(mongoerr.StaleConfig) {
			t.Fatalf("ordered %v: code %v", ordered, code)
		}
	}
	if raw, ok, err := coll.FindByID(int32(0)); err != nil || !ok || raw == nil {
		t.Fatalf("the document was deleted: %v %v", ok, err)
	}
}

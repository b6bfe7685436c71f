package changestream

import (
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestShardCollectionNoop(t *testing.T) {
	o2 := bson.D{{Key: "shardCollection", Value: "db.c"}, {Key: "shardKey", Value: bson.D{{Key: "_id", Value: 1}}},
		{Key: "unique", Value: false}, {Key: "numInitialChunks", Value: int64(0)}, {Key: "presplitHashedZones", Value: false}}
	msg := bson.D{{Key: "msg", Value: bson.D{{Key: "shardCollection", Value: "db.c"}}}}
	coll, _ := NewScope("db", "c", false)
	other, _ := NewScope("db", "d", false)
	cluster, _ := NewScope("admin", "", true)
	tests := []struct {
		name     string
		o2       bson.D
		ns       string
		scope    Scope
		expanded bool
		want     []string
	}{
		{"collection stream", o2, "db.c", coll, true, []string{"shardCollection"}},
		{"cluster stream", o2, "db.c", cluster, true, []string{"shardCollection"}},
		{"without showExpandedEvents", o2, "db.c", coll, false, nil},
		{"another collection", o2, "db.c", other, true, nil},
		{"ns mismatch", o2, "db.x", coll, true, nil},
		{"plain no-op", nil, "", cluster, true, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := Events(entry("n", tc.ns, msg, tc.o2), tc.scope, Options{ShowExpandedEvents: tc.expanded})
			if err != nil {
				t.Fatal(err)
			}
			if got := opTypes(evs); !slices.Equal(got, tc.want) {
				t.Fatalf("events %v, want %v", got, tc.want)
			}
			if len(evs) == 0 {
				return
			}
			desc, _ := lookupField(evs[0].Doc, "operationDescription").(bson.D)
			if key := lookupField(desc, "shardKey"); key == nil || lookupField(desc, "unique") != false {
				t.Fatalf("operationDescription %v lacks shardKey/unique", desc)
			}
			if ns, _ := lookupField(evs[0].Doc, "ns").(bson.D); lookupField(ns, "coll") != "c" {
				t.Fatalf("ns %v", ns)
			}
		})
	}
}

package configsvr

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

func TestConfigTimePin(t *testing.T) {
	c := &ConfigTime{}
	read := bson.D{{Key: "find", Value: "chunks"}, {Key: "readConcern", Value: bson.D{{Key: "level", Value: "majority"}}}}
	if got := c.Pin("config", read); len(got) != len(read) {
		t.Fatalf("pinned before any time: %v", got)
	}
	c.Observe(bson.D{{Key: "ok", Value: 1.0}, {Key: "operationTime", Value: bson.Timestamp{T: 10, I: 2}}})
	c.Observe(bson.D{{Key: "ok", Value: 1.0}, {Key: "operationTime", Value: bson.Timestamp{T: 9, I: 5}}}) // older: ignored
	got := c.Pin("config", read)
	rc, _ := bsonx.Get(got, "readConcern")
	after, _ := bsonx.Get(rc.(bson.D), "afterClusterTime")
	ct, _ := bsonx.Get(got, "$clusterTime")
	gossip, _ := bsonx.Get(ct.(bson.D), "clusterTime")
	if after != (bson.Timestamp{T: 10, I: 2}) || gossip != after {
		t.Fatalf("pinned read %v", got)
	}
	if lvl, _ := bsonx.Get(rc.(bson.D), "level"); lvl != "majority" {
		t.Fatalf("level lost: %v", rc)
	}
	for _, tc := range []struct {
		db  string
		cmd bson.D
	}{
		{"config", bson.D{{Key: "insert", Value: "chunks"}}},
		{"app", read},
		{"config", bson.D{{Key: "find", Value: "chunks"}}},
	} {
		if got := c.Pin(tc.db, tc.cmd); len(got) != len(tc.cmd) {
			t.Errorf("%s %v pinned: %v", tc.db, tc.cmd, got)
		}
	}
}

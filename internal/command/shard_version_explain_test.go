package command

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// An explain is checked by the version of the command it explains (the
// router puts shardVersion there); an explain of a write fails as a
// command, with no write run.
func TestShardVersionExplain(t *testing.T) {
	d, _, _ := newReadTestDispatcher(t, nil)
	f := &fakeVersioner{}
	d.SetShardVersioner(f)
	sv := bson.E{Key: "shardVersion", Value: bson.D{}}
	for _, inner := range []bson.D{
		{{Key: "find", Value: "c"}, sv},
		{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "limit", Value: 0}}}}, sv},
	} {
		_, err := runRead(d, bson.D{{Key: "explain", Value: inner}, {Key: "verbosity", Value: "queryPlanner"}})
		if codeOf(err) != mongoerr.StaleConfig {
			t.Fatalf("explain %v: %v, want StaleConfig", inner, err)
		}
	}
	// Unversioned, and explains of commands a router does not version, pass.
	if _, err := runRead(d, bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "c"}}}}); err != nil {
		t.Fatalf("unversioned explain: %v", err)
	}
	f.calls = nil
	_, _ = runRead(d, bson.D{{Key: "explain", Value: bson.D{{Key: "listIndexes", Value: "c"}, sv}}})
	if len(f.calls) != 0 {
		t.Fatalf("explain of listIndexes was checked: %v", f.calls)
	}
}

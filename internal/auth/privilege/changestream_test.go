package privilege

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestChangeStreamPrivileges: a $changeStream needs changeStream and find
// on what it watches: read on the database for a collection or database
// stream, readAnyDatabase for a cluster stream; a role with find alone
// (a custom role) is not enough.
func TestChangeStreamPrivileges(t *testing.T) {
	stream := func(spec bson.D) bson.A { return bson.A{bson.D{{Key: "$changeStream", Value: spec}}} }
	cluster := stream(bson.D{{Key: "allChangesForCluster", Value: true}})
	findOnly := Set{{Resource{DB: "db1"}, Find}}
	cases := []struct {
		set  Set
		db   string
		cmd  bson.D
		want bool
	}{
		{Resolve([]Role{{"read", "db1"}}), "db1", cmd("aggregate", "c", "pipeline", stream(bson.D{})), true},
		{Resolve([]Role{{"read", "db1"}}), "db1", cmd("aggregate", 1, "pipeline", stream(bson.D{})), true},
		{Resolve([]Role{{"read", "db1"}}), "db2", cmd("aggregate", "c", "pipeline", stream(bson.D{})), false},
		{findOnly, "db1", cmd("aggregate", "c", "pipeline", stream(bson.D{})), false},
		{findOnly, "db1", cmd("aggregate", "c", "pipeline", bson.A{}), true},
		{Resolve([]Role{{"read", "admin"}}), "admin", cmd("aggregate", 1, "pipeline", cluster), false},
		{Resolve([]Role{{"readAnyDatabase", "admin"}}), "admin", cmd("aggregate", 1, "pipeline", cluster), true},
	}
	for _, tc := range cases {
		needs, ok := Needs("aggregate", tc.db, tc.cmd)
		if got := ok && tc.set.Allows(needs); got != tc.want {
			t.Errorf("%v on %s: allowed %v, want %v", tc.cmd, tc.db, got, tc.want)
		}
	}
	if a, ok := byName["changeStream"]; !ok || a != ChangeStream {
		t.Errorf("action name changeStream = %v, %v", a, ok)
	}
}

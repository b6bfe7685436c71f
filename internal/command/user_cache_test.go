package command

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// TestUserCacheGeneration: the generation holds while users and roles do
// not change and moves with a write below the commands (as replication
// applies it); only a config server answers the command.
func TestUserCacheGeneration(t *testing.T) {
	d, _ := authTestDispatcher(t, bson.A{})
	g1 := d.cacheGeneration()
	if g1.IsZero() || d.cacheGeneration() != g1 {
		t.Fatal("the generation moved without a change")
	}
	role := bson.D{{Key: "_id", Value: "db1.r"}, {Key: "role", Value: "r"}, {Key: "db", Value: "db1"},
		{Key: "privileges", Value: bson.A{}}, {Key: "roles", Value: bson.A{}}}
	if err := writeErr(d.eng.Insert(usersDB, rolesColl, []bson.D{role}, true, nil)); err != nil {
		t.Fatal(err)
	}
	g2 := d.cacheGeneration()
	if g2 == g1 || d.cacheGeneration() != g2 {
		t.Fatalf("after a role write: %v then %v", g1, g2)
	}
	_, err := getUserCacheGeneration(&Ctx{D: d}, &request.GetUserCacheGeneration{})
	if !mongoerr.Is(err, mongoerr.IllegalOperation) {
		t.Fatalf("on a non-config server: %v", err)
	}
	d.info.ClusterRole = "configsvr"
	reply, err := getUserCacheGeneration(&Ctx{D: d}, &request.GetUserCacheGeneration{})
	if err != nil || len(reply) != 1 || reply[0].Value != g2 {
		t.Fatalf("on a config server: %v, %v", reply, err)
	}
}

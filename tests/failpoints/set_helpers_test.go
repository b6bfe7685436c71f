package failpoints

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

// twoMembers starts a two-member set named name and returns a client of
// the set and a direct client of its secondary (both closed by the test's
// cleanup).
func twoMembers(ctx context.Context, t *testing.T, name string) (set, secondary *mongo.Client) {
	t.Helper()
	s := harness.StartSets(t, []cluster.Spec{{Name: name, Data: 2}})[0]
	c, err := mongo.Connect(options.Client().ApplyURI(s.URI()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	for _, m := range s.Members() {
		mc, err := s.Client(m)
		if err != nil {
			t.Fatal(err)
		}
		var hello bson.M
		if err := mc.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
			t.Fatal(err)
		}
		if hello["secondary"] == true {
			secondary = mc
		}
	}
	if secondary == nil {
		t.Fatal("no secondary")
	}
	return c, secondary
}

package harness

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/internal/cluster"
)

// OneShardCluster starts a config server set named prefix+"cfg", a shard
// set prefix+"sh0" and a router, adds the shard, and returns a client of
// the router (disconnected by the test's cleanup).
func OneShardCluster(t testing.TB, prefix string) *mongo.Client {
	t.Helper()
	sets := StartSets(t, []cluster.Spec{
		{Name: prefix + "cfg", ExtraArgs: []string{"--configsvr"}},
		{Name: prefix + "sh0", ExtraArgs: []string{"--shardsvr"}},
	})
	r := StartRouter(t, Seed(sets[0]))
	cl, err := mongo.Connect(options.Client().ApplyURI(r.URI()).SetServerSelectionTimeout(20 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Disconnect(context.Background()) })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := cl.Database("admin").RunCommand(ctx, bson.D{{Key: "addShard", Value: Seed(sets[1])}}).Err(); err != nil {
		t.Fatalf("addShard: %v", err)
	}
	return cl
}

package failpoints

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestFailCommandOnHandshake: failCommand on hello with an appName acts on
// the handshake of that application's new connections (so its client
// cannot select the server), not on other applications'.
func TestFailCommandOnHandshake(t *testing.T) {
	s := harness.Start(t)
	admin := s.Client(t)
	failPoint(t, admin, "failCommand", bson.D{{Key: "times", Value: 50}}, bson.D{
		{Key: "failCommands", Value: bson.A{"isMaster", "hello"}},
		{Key: "errorCode", Value: 91}, {Key: "appName", Value: "fpHandshake"},
	})
	ctx := context.Background()
	c, err := mongo.Connect(options.Client().ApplyURI(s.URI()).SetAppName("fpHandshake").SetServerSelectionTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Disconnect(ctx)
	if err := c.Ping(ctx, nil); err == nil {
		t.Error("ping from the failed application succeeded: its handshake hello was not failed")
	}
	if err := admin.Ping(ctx, nil); err != nil {
		t.Errorf("another application's ping: %v", err)
	}
}

// TestFailCommandAlias: a fail point listing hello applies to its alias
// ismaster, as on mongod.
func TestFailCommandAlias(t *testing.T) {
	s := harness.Start(t)
	admin := s.Client(t)
	ctx := context.Background()
	c, err := mongo.Connect(options.Client().ApplyURI(s.URI()).SetAppName("fpAlias"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Disconnect(ctx)
	if err := c.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	failPoint(t, admin, "failCommand", bson.D{{Key: "times", Value: 1}}, bson.D{
		{Key: "failCommands", Value: bson.A{"hello"}},
		{Key: "errorCode", Value: 2}, {Key: "appName", Value: "fpAlias"},
	})
	err = c.Database("admin").RunCommand(ctx, bson.D{{Key: "ismaster", Value: 1}}).Err()
	if !isCode(err, 2) {
		t.Errorf("ismaster with failCommands [hello]: %v, want the fail point's BadValue", err)
	}
}

package failpoints

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

// TestFsync: fsync flushes and answers numFiles; fsync lock holds writes
// (not reads) until fsyncUnlock; fsyncUnlock with no lock is
// IllegalOperation; validate refuses background with full (which
// pymongo's test relies on).
func TestFsync(t *testing.T) {
	c := harness.Start(t).Client(t)
	ctx := context.Background()
	admin := c.Database("admin")
	if _, err := c.Database("fp").Collection("f").InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	var reply bson.M
	if err := admin.RunCommand(ctx, bson.D{{Key: "fsync", Value: 1}}).Decode(&reply); err != nil || reply["numFiles"] != int32(1) {
		t.Errorf("fsync: %v %v", reply, err)
	}
	fsyncLockHoldsWrites(t, c)
	if err := admin.RunCommand(ctx, bson.D{{Key: "fsyncUnlock", Value: 1}}).Err(); !isCode(err, 20) {
		t.Errorf("fsyncUnlock: %v, want IllegalOperation (20)", err)
	}
	if err := c.Database("fp").RunCommand(ctx, bson.D{{Key: "fsync", Value: 1}}).Err(); !isCode(err, 13) {
		t.Errorf("fsync outside admin: %v, want Unauthorized (13)", err)
	}
	v := bson.D{{Key: "validate", Value: "f"}, {Key: "full", Value: true}, {Key: "background", Value: true}}
	if err := c.Database("fp").RunCommand(ctx, v).Err(); !isCode(err, 72) {
		t.Errorf("validate full+background: %v, want InvalidOptions (72)", err)
	}
}

// strictAPI runs cmd with apiVersion 1 and apiStrict.
func strictAPI(ctx context.Context, c *mongo.Client, cmd bson.D) error {
	cmd = append(cmd, bson.E{Key: "apiVersion", Value: "1"}, bson.E{Key: "apiStrict", Value: true})
	return c.Database("admin").RunCommand(ctx, cmd).Err()
}

// TestStableAPIStrict: on a data node and on a router, apiStrict refuses
// a command outside API Version 1 with APIStrictError (323) and accepts
// one inside; mongod's test commands testVersion1/testVersion2 exist.
func TestStableAPIStrict(t *testing.T) {
	ctx := context.Background()
	node := harness.Start(t).Client(t)
	if err := node.Database("admin").RunCommand(ctx, bson.D{{Key: "testVersion2", Value: 1}}).Err(); err != nil {
		t.Errorf("testVersion2 without the Stable API: %v", err)
	}
	if err := strictAPI(ctx, node, bson.D{{Key: "testVersion1", Value: 1}}); err != nil {
		t.Errorf("testVersion1 strict: %v", err)
	}
	if err := strictAPI(ctx, node, bson.D{{Key: "testVersion2", Value: 1}}); !isCode(err, 323) {
		t.Errorf("testVersion2 strict: %v, want APIStrictError (323)", err)
	}

	cfg := harness.StartSets(t, []cluster.Spec{{Name: "cfgapi", ExtraArgs: []string{"--configsvr"}}})[0]
	r := harness.StartRouter(t, harness.Seed(cfg))
	rc, err := mongo.Connect(optionsFor(r.URI()))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Disconnect(ctx)
	if err := strictAPI(ctx, rc, bson.D{{Key: "ping", Value: 1}}); err != nil {
		t.Errorf("router: ping strict: %v", err)
	}
	if err := strictAPI(ctx, rc, bson.D{{Key: "buildInfo", Value: 1}}); !isCode(err, 323) {
		t.Errorf("router: buildInfo strict: %v, want APIStrictError (323)", err)
	}
	bad := bson.D{{Key: "ping", Value: 1}, {Key: "apiVersion", Value: "2"}}
	if err := rc.Database("admin").RunCommand(ctx, bad).Err(); !isCode(err, 322) {
		t.Errorf("router: apiVersion 2: %v, want APIVersionError (322)", err)
	}
}

// optionsFor is a client for uri.
func optionsFor(uri string) *options.ClientOptions { return options.Client().ApplyURI(uri) }

// fsyncLockHoldsWrites: with the fsync lock held, an insert waits (a find
// does not) until fsyncUnlock; lockCount nests.
func fsyncLockHoldsWrites(t *testing.T, c *mongo.Client) {
	t.Helper()
	ctx := context.Background()
	admin := c.Database("admin")
	var r struct {
		LockCount int64 `bson:"lockCount"`
	}
	for want := int64(1); want <= 2; want++ {
		if err := admin.RunCommand(ctx, bson.D{{Key: "fsync", Value: 1}, {Key: "lock", Value: true}}).Decode(&r); err != nil || r.LockCount != want {
			t.Fatalf("fsync lock: %+v %v, want lockCount %d", r, err, want)
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Database("fp").Collection("f").InsertOne(ctx, bson.D{{Key: "x", Value: 2}})
		done <- err
	}()
	if err := c.Database("fp").Collection("f").FindOne(ctx, bson.D{}).Err(); err != nil {
		t.Errorf("find under the fsync lock: %v", err)
	}
	for left := int64(1); left >= 0; left-- {
		select {
		case err := <-done:
			t.Fatalf("insert finished under the fsync lock: %v", err)
		case <-time.After(300 * time.Millisecond):
		}
		if err := admin.RunCommand(ctx, bson.D{{Key: "fsyncUnlock", Value: 1}}).Decode(&r); err != nil || r.LockCount != left {
			t.Fatalf("fsyncUnlock: %+v %v, want lockCount %d", r, err, left)
		}
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("insert after fsyncUnlock: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("insert still held after fsyncUnlock")
	}
}

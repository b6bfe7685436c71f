package integration

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestTTLExpiry: with ttlMonitorSleepSecs=1 (mongod's --setParameter), a
// document whose indexed date is past expireAfterSeconds is deleted within
// a few monitor passes, and a fresh one stays.
func TestTTLExpiry(t *testing.T) {
	srv := harness.Start(t, harness.WithArgs("--setParameter", "ttlMonitorSleepSecs=1"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	coll := srv.Client(t).Database("ttl").Collection("c")
	idx := mongo.IndexModel{Keys: bson.D{{Key: "at", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(5)}
	if _, err := coll.Indexes().CreateOne(ctx, idx); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	docs := []any{
		bson.D{{Key: "_id", Value: "old"}, {Key: "at", Value: now.Add(-time.Hour)}},
		bson.D{{Key: "_id", Value: "new"}, {Key: "at", Value: now.Add(time.Hour)}},
		bson.D{{Key: "_id", Value: "nodate"}, {Key: "at", Value: "not a date"}},
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := coll.CountDocuments(ctx, bson.D{{Key: "_id", Value: "old"}})
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("expired document still present after 10 s with ttlMonitorSleepSecs=1")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 2 {
		t.Fatalf("remaining documents = %d (err %v), want 2 (the future and the non-date one)", n, err)
	}
	var got bson.M
	err := srv.Client(t).Database("admin").RunCommand(ctx, bson.D{{Key: "getParameter", Value: 1}, {Key: "ttlMonitorSleepSecs", Value: 1}}).Decode(&got)
	if err != nil || got["ttlMonitorSleepSecs"] != int32(1) {
		t.Fatalf("getParameter ttlMonitorSleepSecs = %v (err %v), want 1", got["ttlMonitorSleepSecs"], err)
	}
}

package sharding

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestRouterFastPath drives the router's byte-forwarding path
// (internal/shard/router/rawforward.go) with what it must keep: inserts
// sent as document sequences larger than one read buffer, cursors opened
// by forwarded finds (getMore goes to their member), shard errors passed
// through, unacknowledged writes, the router's failCommand fail point
// counted once per command, and finds and one-statement writes a sharded
// collection's routing table sends to one shard.
func TestRouterFastPath(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	coll := cl.Database("fp").Collection("c")
	const n = 300
	pad := strings.Repeat("p", 2000)

	t.Run("insert sequence and cursor", func(t *testing.T) {
		docs := make([]any, n)
		for i := range docs {
			docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "pad", Value: pad}}
		}
		res, err := coll.InsertMany(ctxT(t), docs)
		must(t, err, "insertMany")
		if len(res.InsertedIDs) != n {
			t.Fatalf("inserted %d, want %d", len(res.InsertedIDs), n)
		}
		cur, err := coll.Find(ctxT(t), bson.D{}, options.Find().SetBatchSize(40).SetSort(bson.D{{Key: "_id", Value: 1}}))
		must(t, err, "find")
		var got []bson.M
		must(t, cur.All(ctxT(t), &got), "iterate (getMore)")
		if len(got) != n || got[n-1]["_id"] != int32(n-1) || got[0]["pad"] != pad {
			t.Fatalf("cursor returned %d documents (last %v)", len(got), got[len(got)-1]["_id"])
		}
	})

	t.Run("point read, update, delete", func(t *testing.T) {
		var doc bson.M
		must(t, coll.FindOne(ctxT(t), bson.D{{Key: "_id", Value: 7}}).Decode(&doc), "findOne")
		if doc["_id"] != int32(7) {
			t.Fatalf("findOne = %v", doc["_id"])
		}
		up, err := coll.UpdateOne(ctxT(t), bson.D{{Key: "_id", Value: 7}}, bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 1}}}})
		must(t, err, "updateOne")
		if up.MatchedCount != 1 || up.ModifiedCount != 1 {
			t.Fatalf("update = %+v", up)
		}
		del, err := coll.DeleteOne(ctxT(t), bson.D{{Key: "_id", Value: 8}})
		must(t, err, "deleteOne")
		if del.DeletedCount != 1 {
			t.Fatalf("delete = %+v", del)
		}
		count, err := coll.CountDocuments(ctxT(t), bson.D{{Key: "y", Value: 1}})
		must(t, err, "count")
		if count != 1 {
			t.Fatalf("count = %d", count)
		}
	})

	t.Run("shard errors pass through", func(t *testing.T) {
		_, err := coll.InsertOne(ctxT(t), bson.D{{Key: "_id", Value: 1}})
		var we mongo.WriteException
		if !errors.As(err, &we) || len(we.WriteErrors) != 1 || we.WriteErrors[0].Code != 11000 {
			t.Fatalf("duplicate insert: %v", err)
		}
		checkCode(t, cl.Database("fp").RunCommand(ctxT(t), bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: "x"}}).Err(), 14, "filter not a document")
	})

	t.Run("unacknowledged write", func(t *testing.T) {
		w0 := cl.Database("fp").Collection("c", options.Collection().SetWriteConcern(writeconcern.Unacknowledged()))
		_, err := w0.InsertOne(ctxT(t), bson.D{{Key: "_id", Value: "w0"}})
		must(t, err, "w:0 insert")
		deadline := time.Now().Add(10 * time.Second)
		for {
			err := coll.FindOne(ctxT(t), bson.D{{Key: "_id", Value: "w0"}}).Err()
			if err == nil {
				break
			}
			if !errors.Is(err, mongo.ErrNoDocuments) || time.Now().After(deadline) {
				t.Fatalf("w:0 insert not found: %v", err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})

	t.Run("stale database version", func(t *testing.T) {
		r2 := harness.StartRouter(t, "cfg/"+tp.cfg.Members()[0].Host)
		cl2, err := mongo.Connect(options.Client().ApplyURI(r2.URI()))
		must(t, err, "connect to the second router")
		t.Cleanup(func() { _ = cl2.Disconnect(context.Background()) })
		pin := bson.D{{Key: "enableSharding", Value: "sdb"}, {Key: "primaryShard", Value: "sh0"}}
		must(t, admin.RunCommand(ctxT(t), pin).Err(), "enableSharding sdb")
		_, err = cl.Database("sdb").Collection("c").InsertOne(ctxT(t), bson.D{{Key: "_id", Value: "old"}})
		must(t, err, "insert old")
		c2 := cl2.Database("sdb").Collection("c")
		must(t, c2.FindOne(ctxT(t), bson.D{{Key: "_id", Value: "old"}}).Err(), "the second router reads sdb (caching its version)")
		// Dropped and made again through the first router: a new version.
		must(t, cl.Database("sdb").Drop(ctxT(t)), "dropDatabase sdb")
		must(t, admin.RunCommand(ctxT(t), pin).Err(), "enableSharding sdb again")
		_, err = cl.Database("sdb").Collection("c").InsertOne(ctxT(t), bson.D{{Key: "_id", Value: "new"}})
		must(t, err, "insert new")
		// The second router's cached version is stale: StaleDbVersion, reload, resend.
		cur, err := c2.Find(ctxT(t), bson.D{})
		must(t, err, "find through the stale router")
		var got []bson.M
		must(t, cur.All(ctxT(t), &got), "iterate")
		if len(got) != 1 || got[0]["_id"] != "new" {
			t.Fatalf("stale router found %v", got)
		}
		_, err = c2.InsertOne(ctxT(t), bson.D{{Key: "_id", Value: "via r2"}})
		must(t, err, "insert through the second router")
		n, err := tp.shardClient(t, "sh0").Database("sdb").Collection("c").CountDocuments(ctxT(t), bson.D{})
		must(t, err, "count on sh0")
		if n != 2 {
			t.Fatalf("sdb.c has %d documents on sh0, want 2", n)
		}
	})

	t.Run("failCommand counted once", func(t *testing.T) {
		fail := func(mode any, cmd string, code int32) {
			must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: mode},
				{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{cmd}}, {Key: "errorCode", Value: code}}}}).Err(), "configureFailPoint")
		}
		t.Cleanup(func() { fail("off", "insert", 0) })
		fail(bson.D{{Key: "skip", Value: 1}}, "insert", 2)
		_, err := coll.InsertOne(ctxT(t), bson.D{{Key: "_id", Value: "skipped"}})
		must(t, err, "first insert (skipped by the fail point)")
		_, err = coll.InsertOne(ctxT(t), bson.D{{Key: "_id", Value: "failed"}})
		checkCode(t, err, 2, "second insert")
		fail("off", "insert", 0)
		fail(bson.D{{Key: "times", Value: 1}}, "find", 96)
		checkCode(t, coll.FindOne(ctxT(t), bson.D{{Key: "_id", Value: 1}}).Err(), 96, "first find")
		must(t, coll.FindOne(ctxT(t), bson.D{{Key: "_id", Value: 1}}).Err(), "second find")
	})

	t.Run("sharded targeted find and writes", func(t *testing.T) {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "fp.h"}, {Key: "key", Value: bson.D{{Key: "_id", Value: "hashed"}}}}).Err(), "shardCollection fp.h")
		h := cl.Database("fp").Collection("h")
		docs := make([]any, 100)
		for i := range docs {
			docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "v", Value: i * 10}}
		}
		_, err := h.InsertMany(ctxT(t), docs)
		must(t, err, "insert into fp.h")
		for i := 0; i < 100; i++ {
			var doc bson.M
			must(t, h.FindOne(ctxT(t), bson.D{{Key: "_id", Value: i}}).Decode(&doc), "findOne _id %d", i)
			if doc["v"] != int32(i*10) {
				t.Fatalf("_id %d: v = %v", i, doc["v"])
			}
		}
		// One-statement writes pinned by the shard key go to its owner.
		_, err = h.InsertOne(ctxT(t), bson.D{{Key: "_id", Value: 1000}, {Key: "v", Value: 1}})
		must(t, err, "insertOne into fp.h")
		up, err := h.UpdateOne(ctxT(t), bson.D{{Key: "_id", Value: 1000}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "v", Value: 1}}}})
		must(t, err, "updateOne on fp.h")
		var doc bson.M
		must(t, h.FindOne(ctxT(t), bson.D{{Key: "_id", Value: 1000}}).Decode(&doc), "findOne _id 1000")
		if up.MatchedCount != 1 || doc["v"] != int32(2) {
			t.Fatalf("update matched %d, v = %v", up.MatchedCount, doc["v"])
		}
		held := 0
		for _, s := range []string{"sh0", "sh1"} {
			n, err := tp.shardClient(t, s).Database("fp").Collection("h").CountDocuments(ctxT(t), bson.D{{Key: "_id", Value: 1000}})
			must(t, err, "count on %s", s)
			held += int(n)
		}
		if held != 1 {
			t.Fatalf("_id 1000 is on %d shards", held)
		}
		del, err := h.DeleteOne(ctxT(t), bson.D{{Key: "_id", Value: 1000}})
		must(t, err, "deleteOne on fp.h")
		if del.DeletedCount != 1 {
			t.Fatalf("deleteOne on fp.h deleted %d", del.DeletedCount)
		}
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "fp.r"}, {Key: "key", Value: bson.D{{Key: "k", Value: 1}}}}).Err(), "shardCollection fp.r")
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "split", Value: "fp.r"}, {Key: "middle", Value: bson.D{{Key: "k", Value: 50}}}}).Err(), "split fp.r")
		r := cl.Database("fp").Collection("r")
		for i := range docs {
			docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "k", Value: i}}
		}
		_, err = r.InsertMany(ctxT(t), docs)
		must(t, err, "insert into fp.r")
		cur, err := r.Find(ctxT(t), bson.D{{Key: "k", Value: bson.D{{Key: "$lt", Value: 40}}}}, options.Find().SetBatchSize(3).SetSort(bson.D{{Key: "k", Value: 1}}))
		must(t, err, "targeted find with a cursor")
		var got []bson.M
		must(t, cur.All(ctxT(t), &got), "iterate the targeted cursor")
		if len(got) != 40 || got[39]["k"] != int32(39) {
			t.Fatalf("targeted find returned %d documents", len(got))
		}
		// A find the fast path looks at and leaves to the decoded path (it
		// goes to both shards) meets the fail point once, not twice.
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: bson.D{{Key: "skip", Value: 1}}},
			{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"find"}}, {Key: "errorCode", Value: int32(96)}}}}).Err(), "configureFailPoint")
		t.Cleanup(func() {
			_ = admin.RunCommand(ctxT(t), bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "off"}}).Err()
		})
		must(t, h.FindOne(ctxT(t), bson.D{{Key: "v", Value: 10}}).Err(), "scattered find skipped by the fail point")
		checkCode(t, h.FindOne(ctxT(t), bson.D{{Key: "v", Value: 10}}).Err(), 96, "second scattered find")
	})
}

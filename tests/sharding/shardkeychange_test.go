package sharding

import (
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestShardKeyChange is issue #11's change of a document's shard key
// (MongoDB 4.2+ WouldChangeOwningShard): in a retryable write the router
// moves the document to the shard owning its new key; without one, in a
// multi update or in a larger batch it is refused with MongoDB's errors.
func TestShardKeyChange(t *testing.T) {
	kt := startKeyTopo(t, "kc")
	coll := kt.coll
	noRetry := kt.noRetryColl(t)
	from := kt.onShard["sh0"]
	if len(from) < 10 {
		t.Fatalf("sh0 holds %v, want at least 10 documents", from)
	}

	// moved checks that _id id is only on sh1, with x newX.
	moved := func(t *testing.T, id, newX int) {
		t.Helper()
		if n := len(kt.shardDocs(t, "sh0", bson.D{{Key: "_id", Value: id}})); n != 0 {
			t.Fatalf("_id %d still on sh0 (%d copies)", id, n)
		}
		got := kt.shardDocs(t, "sh1", bson.D{{Key: "_id", Value: id}})
		if len(got) != 1 || got[0].Lookup("x").AsInt64() != int64(newX) {
			t.Fatalf("_id %d on sh1: %v, want one document with x %d", id, got, newX)
		}
	}
	t.Run("updateOne with the key moves the document", func(t *testing.T) {
		id, newX := from[0], kt.valueOn(t, "sh1", 1000)
		res, err := coll.UpdateOne(ctxT(t), bson.D{{Key: "x", Value: id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: newX}}}})
		must(t, err, "updateOne")
		if res.MatchedCount != 1 || res.ModifiedCount != 1 {
			t.Fatalf("updateOne = %+v", res)
		}
		moved(t, id, newX)
	})
	t.Run("updateOne by _id moves the document", func(t *testing.T) {
		id, newX := from[1], kt.valueOn(t, "sh1", 2000)
		res, err := coll.UpdateOne(ctxT(t), bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: newX}}}})
		must(t, err, "updateOne")
		if res.ModifiedCount != 1 {
			t.Fatalf("updateOne = %+v", res)
		}
		moved(t, id, newX)
	})
	t.Run("findOneAndUpdate returns the post-image", func(t *testing.T) {
		id, newX := from[2], kt.valueOn(t, "sh1", 3000)
		var got bson.M
		must(t, coll.FindOneAndUpdate(ctxT(t), bson.D{{Key: "x", Value: id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: newX}}}},
			options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&got), "findOneAndUpdate")
		if got["_id"] != int32(id) || got["x"] != int32(newX) {
			t.Fatalf("findOneAndUpdate = %v", got)
		}
		moved(t, id, newX)
	})
	t.Run("retried move applies once", func(t *testing.T) {
		id, newX := from[3], kt.valueOn(t, "sh1", 4000)
		setRouterFailPoint(t, kt.cl, "update")
		res, err := coll.UpdateOne(ctxT(t), bson.D{{Key: "x", Value: id}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "x", Value: newX - id}}}})
		must(t, err, "updateOne")
		if res.MatchedCount != 1 {
			t.Fatalf("updateOne = %+v", res)
		}
		moved(t, id, newX)
	})
	t.Run("without a retryable write refused", func(t *testing.T) {
		id := from[4]
		_, err := noRetry.UpdateOne(ctxT(t), bson.D{{Key: "x", Value: id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 5000}}}})
		checkWriteCode(t, err, 20, "update of the shard key without retryWrites")
		if !strings.Contains(err.Error(), "retryWrites: true") {
			t.Fatalf("message: %v", err)
		}
		if got := kt.shardDocs(t, "sh0", bson.D{{Key: "_id", Value: id}, {Key: "x", Value: id}}); len(got) != 1 {
			t.Fatalf("refused update changed the document: %v", got)
		}
	})
	t.Run("change staying on the shard applied", func(t *testing.T) {
		id := from[5]
		newX := kt.valueOn(t, "sh0", 6000)
		res, err := coll.UpdateOne(ctxT(t), bson.D{{Key: "x", Value: id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: newX}}}})
		must(t, err, "updateOne")
		if res.ModifiedCount != 1 {
			t.Fatalf("updateOne = %+v", res)
		}
		if got := kt.shardDocs(t, "sh0", bson.D{{Key: "_id", Value: id}, {Key: "x", Value: newX}}); len(got) != 1 {
			t.Fatalf("document not updated in place on sh0: %v", got)
		}
	})
	t.Run("multi update refused", func(t *testing.T) {
		_, err := coll.UpdateMany(ctxT(t), bson.D{{Key: "g", Value: "a"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "x", Value: 7000}}}})
		checkWriteCode(t, err, 72, "multi update of the shard key")
		if n := kt.countBoth(t, bson.D{{Key: "x", Value: bson.D{{Key: "$gte", Value: 7000}}}}); n != 0 {
			t.Fatalf("refused multi update changed %d documents", n)
		}
	})
	t.Run("upsert by _id without the key", func(t *testing.T) {
		// No shard holds _id 900: the upsert runs on the first shard,
		// whose new document belongs to sh1 and is inserted there.
		x := kt.valueOn(t, "sh1", 9000)
		res, err := coll.UpdateOne(ctxT(t), bson.D{{Key: "_id", Value: 900}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: x}}}},
			options.UpdateOne().SetUpsert(true))
		must(t, err, "upsert")
		if res.UpsertedCount != 1 || res.UpsertedID != int32(900) {
			t.Fatalf("upsert = %+v", res)
		}
		if n := len(kt.shardDocs(t, "sh1", bson.D{{Key: "_id", Value: 900}, {Key: "x", Value: x}})); n != 1 || kt.countBoth(t, bson.D{{Key: "_id", Value: 900}}) != 1 {
			t.Fatalf("upserted document on sh1: %d, on both: %d", n, kt.countBoth(t, bson.D{{Key: "_id", Value: 900}}))
		}
		// Again: now an update of the document found on sh1.
		res, err = coll.UpdateOne(ctxT(t), bson.D{{Key: "_id", Value: 900}}, bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 1}}}},
			options.UpdateOne().SetUpsert(true))
		must(t, err, "second upsert")
		if res.ModifiedCount != 1 || res.UpsertedCount != 0 {
			t.Fatalf("second upsert = %+v", res)
		}
		var got bson.M
		must(t, coll.FindOneAndUpdate(ctxT(t), bson.D{{Key: "_id", Value: 902}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: x}}}},
			options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(options.After)).Decode(&got), "findOneAndUpdate upsert")
		if got["_id"] != int32(902) || got["x"] != int32(x) || len(kt.shardDocs(t, "sh1", bson.D{{Key: "_id", Value: 902}})) != 1 {
			t.Fatalf("findOneAndUpdate upsert = %v", got)
		}
		_, err = noRetry.UpdateOne(ctxT(t), bson.D{{Key: "_id", Value: 901}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: x}}}},
			options.UpdateOne().SetUpsert(true))
		checkWriteCode(t, err, 20, "cross-shard upsert without retryWrites")
		if n := kt.countBoth(t, bson.D{{Key: "_id", Value: 901}}); n != 0 {
			t.Fatalf("refused upsert inserted %d documents", n)
		}
	})
	t.Run("missing key set to null, $unset of the key", func(t *testing.T) {
		// A document without x: setting x to null is no change of its
		// key, allowed in a multi update without a retryable write.
		_, err := coll.InsertOne(ctxT(t), bson.D{{Key: "_id", Value: 950}, {Key: "g", Value: "missing"}})
		must(t, err, "insert without the key")
		res, err := noRetry.UpdateMany(ctxT(t), bson.D{{Key: "g", Value: "missing"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: nil}}}})
		must(t, err, "set missing key to null")
		if res.ModifiedCount != 1 {
			t.Fatalf("set missing key to null: %+v", res)
		}
		// $unset of the key is a change of its value (to missing).
		id := from[9]
		_, err = noRetry.UpdateOne(ctxT(t), bson.D{{Key: "x", Value: id}}, bson.D{{Key: "$unset", Value: bson.D{{Key: "x", Value: ""}}}})
		checkWriteCode(t, err, 20, "$unset of the key without retryWrites")
		res, err = coll.UpdateOne(ctxT(t), bson.D{{Key: "x", Value: id}}, bson.D{{Key: "$unset", Value: bson.D{{Key: "x", Value: ""}}}})
		must(t, err, "$unset of the key")
		if res.ModifiedCount != 1 {
			t.Fatalf("$unset of the key: %+v", res)
		}
		if n := kt.countBoth(t, bson.D{{Key: "_id", Value: id}, {Key: "x", Value: bson.D{{Key: "$exists", Value: false}}}}); n != 1 {
			t.Fatalf("after $unset: %d copies without x", n)
		}
		if n := kt.countBoth(t, bson.D{{Key: "_id", Value: id}}); n != 1 {
			t.Fatalf("after $unset: %d copies", n)
		}
	})
	t.Run("batch of two moves refused", func(t *testing.T) {
		a, b, newX := from[7], from[8], kt.valueOn(t, "sh1", 8000)
		_, err := coll.BulkWrite(ctxT(t), []mongo.WriteModel{
			mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "x", Value: a}}).SetUpdate(bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: newX}}}}),
			mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "x", Value: b}}).SetUpdate(bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: newX}}}}),
		})
		msg := checkBulkCode(t, err, 72, "two moves in one batch")
		if !strings.Contains(msg, "write batch of size 1") {
			t.Fatalf("message %q", msg)
		}
		if n := len(kt.shardDocs(t, "sh0", bson.D{{Key: "_id", Value: a}, {Key: "x", Value: a}})); n != 1 {
			t.Fatalf("refused move changed _id %d", a)
		}
	})
}

// valueOn returns an x value from base on that lands on shard name: it
// inserts probe documents through the router (then deletes them) until
// one is on that shard (bounded: each lands on either shard by its hash).
func (kt *keyTopo) valueOn(t *testing.T, name string, base int) int {
	t.Helper()
	for x := base; x < base+64; x++ {
		_, err := kt.coll.InsertOne(ctxT(t), bson.D{{Key: "_id", Value: -x}, {Key: "x", Value: x}})
		must(t, err, "probe insert")
		there := len(kt.shardDocs(t, name, bson.D{{Key: "_id", Value: -x}})) == 1
		_, err = kt.coll.DeleteOne(ctxT(t), bson.D{{Key: "x", Value: x}, {Key: "_id", Value: -x}})
		must(t, err, "probe delete")
		if there {
			return x
		}
	}
	t.Fatalf("no x in [%d, %d) lands on %s", base, base+64, name)
	return 0
}

// noRetryColl is the collection through a client without retryable
// writes.
func (kt *keyTopo) noRetryColl(t *testing.T) *mongo.Collection {
	t.Helper()
	cl, err := mongo.Connect(options.Client().ApplyURI(kt.tp.router.URI()).SetRetryWrites(false).SetServerSelectionTimeout(10 * time.Second))
	must(t, err, "connect")
	t.Cleanup(func() { _ = cl.Disconnect(ctxT(t)) })
	return cl.Database(kt.coll.Database().Name()).Collection(kt.coll.Name())
}

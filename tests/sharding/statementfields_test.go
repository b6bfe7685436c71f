package sharding

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestWriteStatementFields checks that a write on a sharded collection
// keeps its statement's fields through the router's split and two-phase
// paths (arrayFilters, let and hint without the shard key), is parsed as a data node
// parses it (an update statement's sort, unknown before MongoDB 8.0,
// refuses the whole command), and that an upsert whose filter is an
// equality with null on the shard key is placed by the null key, as
// MongoDB's extractShardKeyFromQuery takes it.
func TestWriteStatementFields(t *testing.T) {
	kt := startKeyTopo(t, "wf")
	coll := kt.coll
	// Two documents, one per shard, match {g: "arr"}; only one of them has
	// an element b 3. x is the shard key, so {_id: ...} is not a key.
	x0, x1 := kt.pick(t, "sh0", 0), kt.pick(t, "sh1", 0)
	for _, x := range []int{x0, x1} {
		arr := bson.A{bson.D{{Key: "b", Value: int32(1)}}}
		if x == x1 {
			arr = append(arr, bson.D{{Key: "b", Value: int32(3)}})
		}
		_, err := coll.UpdateOne(ctxT(t), bson.D{{Key: "x", Value: x}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "g", Value: "arr"}, {Key: "y", Value: arr}}}})
		must(t, err, "prepare x %d", x)
	}

	t.Run("updateOne arrayFilters without the key", func(t *testing.T) {
		res, err := coll.UpdateOne(ctxT(t), bson.D{{Key: "_id", Value: x1}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "y.$[i].b", Value: int32(2)}}}},
			options.UpdateOne().SetArrayFilters([]any{bson.D{{Key: "i.b", Value: 3}}}))
		must(t, err, "updateOne")
		if res.MatchedCount != 1 || res.ModifiedCount != 1 {
			t.Fatalf("updateOne = %+v, want matched 1 modified 1", res)
		}
		want := bson.A{bson.D{{Key: "b", Value: int32(1)}}, bson.D{{Key: "b", Value: int32(2)}}}
		checkArray(t, kt, x1, want)
	})
	t.Run("findOneAndUpdate arrayFilters without the key", func(t *testing.T) {
		err := coll.FindOneAndUpdate(ctxT(t), bson.D{{Key: "_id", Value: x1}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "y.$[i].b", Value: int32(7)}}}},
			options.FindOneAndUpdate().SetArrayFilters([]any{bson.D{{Key: "i.b", Value: 2}}})).Err()
		must(t, err, "findOneAndUpdate")
		want := bson.A{bson.D{{Key: "b", Value: int32(1)}}, bson.D{{Key: "b", Value: int32(7)}}}
		checkArray(t, kt, x1, want)
	})
	t.Run("updateOne let and hint without the key", func(t *testing.T) {
		// The filter reads a let variable: both phases need it.
		filter := bson.D{{Key: "$expr", Value: bson.D{{Key: "$eq", Value: bson.A{"$_id", "$$want"}}}}}
		res, err := coll.UpdateOne(ctxT(t), filter, bson.D{{Key: "$set", Value: bson.D{{Key: "viaLet", Value: true}}}},
			options.UpdateOne().SetLet(bson.D{{Key: "want", Value: x0}}).SetHint(bson.D{{Key: "_id", Value: 1}}))
		must(t, err, "updateOne with let")
		if res.MatchedCount != 1 || res.ModifiedCount != 1 {
			t.Fatalf("updateOne with let = %+v, want matched 1 modified 1", res)
		}
		if n := kt.countBoth(t, bson.D{{Key: "viaLet", Value: true}, {Key: "x", Value: x0}}); n != 1 {
			t.Fatalf("%d documents with x %d changed, want 1", n, x0)
		}
	})
	t.Run("update statement with sort refused whole", func(t *testing.T) {
		cmd := bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{
			bson.D{{Key: "q", Value: bson.D{{Key: "g", Value: "arr"}}}, {Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "sorted", Value: true}}}}},
				{Key: "sort", Value: bson.D{{Key: "_id", Value: -1}}}}}}}
		err := kt.cl.Database("wf").RunCommand(ctxT(t), cmd).Err()
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != 40415 || ce.Message != "BSON field 'update.updates.sort' is an unknown field." {
			t.Fatalf("update with sort: %v, want the data node's 40415 for the whole command", err)
		}
		if n := kt.countBoth(t, bson.D{{Key: "sorted", Value: true}}); n != 0 {
			t.Fatalf("the refused update changed %d documents", n)
		}
	})
	t.Run("findOneAndUpdate upsert without the key", func(t *testing.T) {
		var got bson.M
		err := coll.FindOneAndUpdate(ctxT(t), bson.D{{Key: "g", Value: "famNew"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 1}}}},
			options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(options.After)).Decode(&got)
		must(t, err, "findOneAndUpdate upsert")
		if got["g"] != "famNew" || kt.countBoth(t, bson.D{{Key: "g", Value: "famNew"}}) != 1 {
			t.Fatalf("findOneAndUpdate upsert = %v, want one new document", got)
		}
	})
	t.Run("upsert on a null shard key", func(t *testing.T) {
		checkNullUpserts(t, kt)
	})
}

func checkArray(t *testing.T, kt *keyTopo, x int, want bson.A) {
	t.Helper()
	var got bson.D
	must(t, kt.coll.FindOne(ctxT(t), bson.D{{Key: "x", Value: x}}).Decode(&got), "read x %d", x)
	v, _ := bson.Marshal(bson.D{{Key: "y", Value: want}})
	g := bson.Raw{}
	for _, e := range got {
		if e.Key == "y" {
			g, _ = bson.Marshal(bson.D{e})
		}
	}
	if string(v) != string(g) {
		t.Fatalf("x %d: document %v, want y %v", x, got, want)
	}
}

// checkNullUpserts upserts {_id: null} into a collection sharded on
// {_id: "hashed"} three ways: each finds the document the first created
// (one document in all, on one shard).
func checkNullUpserts(t *testing.T, kt *keyTopo) {
	must(t, kt.cl.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "wf.n"},
		{Key: "key", Value: bson.D{{Key: "_id", Value: "hashed"}}}}).Err(), "shardCollection wf.n")
	n := kt.cl.Database("wf").Collection("n")
	null := bson.D{{Key: "_id", Value: nil}}
	res, err := n.UpdateOne(ctxT(t), null, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 1}}}}, options.UpdateOne().SetUpsert(true))
	must(t, err, "updateOne upsert _id null")
	if res.UpsertedCount != 1 {
		t.Fatalf("updateOne = %+v, want an upsert", res)
	}
	res, err = n.UpdateMany(ctxT(t), null, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 2}}}}, options.UpdateMany().SetUpsert(true))
	must(t, err, "updateMany upsert _id null")
	if res.MatchedCount != 1 || res.UpsertedCount != 0 {
		t.Fatalf("updateMany = %+v, want the existing document matched", res)
	}
	res, err = n.ReplaceOne(ctxT(t), null, bson.D{{Key: "_id", Value: nil}, {Key: "a", Value: 3}}, options.Replace().SetUpsert(true))
	must(t, err, "replaceOne upsert _id null")
	if res.MatchedCount != 1 || res.UpsertedCount != 0 {
		t.Fatalf("replaceOne = %+v, want the existing document matched", res)
	}
	total := 0
	for _, name := range []string{"sh0", "sh1"} {
		cnt, err := kt.tp.shardClient(t, name).Database("wf").Collection("n").CountDocuments(ctxT(t), bson.D{})
		must(t, err, "count on %s", name)
		total += int(cnt)
	}
	if total != 1 {
		t.Fatalf("%d documents on the shards, want 1", total)
	}
	_, err = n.UpdateMany(ctxT(t), bson.D{{Key: "a", Value: 9}}, bson.D{{Key: "$set", Value: bson.D{{Key: "b", Value: 1}}}},
		options.UpdateMany().SetUpsert(true))
	checkWriteCode(t, err, 61, "multi upsert without the key")
}

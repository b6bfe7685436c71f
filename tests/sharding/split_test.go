package sharding

import (
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// chunkRow is a config.chunks document as the tests read it.
type chunkRow struct {
	Min     bson.D         `bson:"min"`
	Max     bson.D         `bson:"max"`
	Shard   string         `bson:"shard"`
	Lastmod bson.Timestamp `bson:"lastmod"`
}

// bound renders a one-field bound: "min", "max" or its number.
func bound(d bson.D) any {
	switch v := d[0].Value.(type) {
	case bson.MinKey:
		return "min"
	case bson.MaxKey:
		return "max"
	case int32:
		return int(v)
	case int64:
		return int(v)
	case float64:
		return int(v)
	default:
		return v
	}
}

// TestSplit is issue #11's split: sh.splitAt's {split, middle} and
// sh.splitFind's {split, find} through the router on a range key, the
// chunks and versions in config.chunks, the data still read and written
// through the new chunks, and MongoDB's errors for bad requests with the
// metadata left alone.
func TestSplit(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	var res bson.M
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "sp.c"}, {Key: "key", Value: bson.D{{Key: "x", Value: 1}}}}).Decode(&res), "shardCollection")
	uuid := res["collectionUUID"]
	coll := cl.Database("sp").Collection("c")
	docs := make([]any, 100)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "x", Value: i}}
	}
	_, err := coll.InsertMany(ctxT(t), docs)
	must(t, err, "insert 100")

	chunks := func() []chunkRow {
		t.Helper()
		cur, err := cl.Database("config").Collection("chunks").Find(ctxT(t), bson.D{{Key: "uuid", Value: uuid}})
		must(t, err, "config.chunks")
		var rows []chunkRow
		must(t, cur.All(ctxT(t), &rows), "config.chunks")
		// Sorted by min: MinKey first, then the numbers.
		slices.SortFunc(rows, func(a, b chunkRow) int {
			av, bv := bound(a.Min), bound(b.Min)
			if av == "min" {
				return -1
			}
			if bv == "min" {
				return 1
			}
			return av.(int) - bv.(int)
		})
		return rows
	}
	type want struct {
		min, max any
		minor    uint32
	}
	check := func(what string, ws ...want) []chunkRow {
		t.Helper()
		rows := chunks()
		if len(rows) != len(ws) {
			t.Fatalf("%s: %d chunks %+v, want %d", what, len(rows), rows, len(ws))
		}
		for i, w := range ws {
			r := rows[i]
			if bound(r.Min) != w.min || bound(r.Max) != w.max || r.Lastmod.T != 1 || r.Lastmod.I != w.minor {
				t.Fatalf("%s: chunk %d is [%v, %v) %d|%d, want [%v, %v) 1|%d (all %+v)",
					what, i, bound(r.Min), bound(r.Max), r.Lastmod.T, r.Lastmod.I, w.min, w.max, w.minor, rows)
			}
			if r.Shard != rows[0].Shard {
				t.Fatalf("%s: a split moved a chunk: %+v", what, rows)
			}
		}
		return rows
	}
	check("after shardCollection", want{"min", "max", 0})

	checkData := func(what string) {
		t.Helper()
		n, err := coll.CountDocuments(ctxT(t), bson.D{})
		must(t, err, "%s: count", what)
		if n != 100 {
			t.Fatalf("%s: %d documents through the router, want 100", what, n)
		}
		for _, x := range []int{0, 10, 25, 49, 50, 75, 99} {
			var d bson.M
			must(t, coll.FindOne(ctxT(t), bson.D{{Key: "x", Value: x}}).Decode(&d), "%s: findOne x=%d", what, x)
		}
		got := findInts(t, coll, bson.D{{Key: "x", Value: bson.D{{Key: "$gte", Value: 45}, {Key: "$lt", Value: 55}}}}, options.Find().SetSort(bson.D{{Key: "x", Value: 1}}), "x")
		if !slices.Equal(got, []int{45, 46, 47, 48, 49, 50, 51, 52, 53, 54}) {
			t.Fatalf("%s: range across the split point: %v", what, got)
		}
	}

	t.Run("middle", func(t *testing.T) {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "split", Value: "sp.c"}, {Key: "middle", Value: bson.D{{Key: "x", Value: 50}}}}).Err(), "split middle x=50")
		check("after split at 50", want{"min", 50, 1}, want{50, "max", 2})
		checkData("after split at 50")
		// Writes on both sides of the split point are routed and read back.
		_, err := coll.InsertMany(ctxT(t), []any{bson.D{{Key: "_id", Value: 1000}, {Key: "x", Value: -7}}, bson.D{{Key: "_id", Value: 1001}, {Key: "x", Value: 500}}})
		must(t, err, "insert on both sides")
		u, err := coll.UpdateMany(ctxT(t), bson.D{{Key: "x", Value: bson.D{{Key: "$in", Value: bson.A{-7, 500}}}}}, bson.D{{Key: "$set", Value: bson.D{{Key: "tag", Value: "new"}}}})
		must(t, err, "update on both sides")
		if u.MatchedCount != 2 || u.ModifiedCount != 2 {
			t.Fatalf("updateMany on both sides: %+v", u)
		}
		n, err := coll.CountDocuments(ctxT(t), bson.D{{Key: "tag", Value: "new"}})
		must(t, err, "count tagged")
		if n != 2 {
			t.Fatalf("%d tagged documents, want 2", n)
		}
		d, err := coll.DeleteMany(ctxT(t), bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 1000}}}})
		must(t, err, "delete")
		if d.DeletedCount != 2 {
			t.Fatalf("deleted %d, want 2", d.DeletedCount)
		}
		checkData("after writes")
	})

	t.Run("find", func(t *testing.T) {
		// The chunk holding x=10 is [MinKey, 50) with x=0..49: its median
		// document is x=25.
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "split", Value: "sp.c"}, {Key: "find", Value: bson.D{{Key: "x", Value: 10}}}}).Err(), "split find x=10")
		check("after splitFind x=10", want{"min", 25, 3}, want{25, 50, 4}, want{50, "max", 2})
		checkData("after splitFind")
	})

	t.Run("bounds", func(t *testing.T) {
		// [50, MaxKey) holds x=50..99: median x=75.
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "split", Value: "sp.c"},
			{Key: "bounds", Value: bson.A{bson.D{{Key: "x", Value: 50}}, bson.D{{Key: "x", Value: bson.MaxKey{}}}}}}).Err(), "split bounds [50, MaxKey)")
		check("after split bounds", want{"min", 25, 3}, want{25, 50, 4}, want{50, 75, 5}, want{75, "max", 6})
		checkData("after split bounds")
		// [99, MaxKey) holds one document: no median to split at.
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "split", Value: "sp.c"}, {Key: "middle", Value: bson.D{{Key: "x", Value: 99}}}}).Err(), "split at 99")
		checkCode(t, admin.RunCommand(ctxT(t), bson.D{{Key: "split", Value: "sp.c"}, {Key: "find", Value: bson.D{{Key: "x", Value: 99}}}}).Err(), 106, "splitFind of a one-document chunk")
	})

	t.Run("errors", func(t *testing.T) {
		_, err := cl.Database("sp").Collection("plain").InsertOne(ctxT(t), bson.D{{Key: "x", Value: 1}})
		must(t, err, "create sp.plain")
		before := chunks()
		bad := []struct {
			what string
			cmd  bson.D
			code int32
		}{
			{"unsharded", bson.D{{Key: "split", Value: "sp.plain"}, {Key: "middle", Value: bson.D{{Key: "x", Value: 5}}}}, 118},
			{"unknown database", bson.D{{Key: "split", Value: "nope.c"}, {Key: "middle", Value: bson.D{{Key: "x", Value: 5}}}}, 118},
			{"at a chunk's min", bson.D{{Key: "split", Value: "sp.c"}, {Key: "middle", Value: bson.D{{Key: "x", Value: 50}}}}, 72},
			{"at MinKey", bson.D{{Key: "split", Value: "sp.c"}, {Key: "middle", Value: bson.D{{Key: "x", Value: bson.MinKey{}}}}}, 72},
			{"at MaxKey", bson.D{{Key: "split", Value: "sp.c"}, {Key: "middle", Value: bson.D{{Key: "x", Value: bson.MaxKey{}}}}}, 72},
			{"not the key", bson.D{{Key: "split", Value: "sp.c"}, {Key: "middle", Value: bson.D{{Key: "y", Value: 5}}}}, 72},
			{"more than the key", bson.D{{Key: "split", Value: "sp.c"}, {Key: "middle", Value: bson.D{{Key: "x", Value: 5}, {Key: "y", Value: 5}}}}, 72},
			{"middle and find", bson.D{{Key: "split", Value: "sp.c"}, {Key: "middle", Value: bson.D{{Key: "x", Value: 5}}}, {Key: "find", Value: bson.D{{Key: "x", Value: 5}}}}, 72},
			{"none", bson.D{{Key: "split", Value: "sp.c"}}, 72},
			{"bounds of no chunk", bson.D{{Key: "split", Value: "sp.c"}, {Key: "bounds", Value: bson.A{bson.D{{Key: "x", Value: 10}}, bson.D{{Key: "x", Value: 50}}}}}, 72},
			{"splitChunk on a router", bson.D{{Key: "splitChunk", Value: "sp.c"}, {Key: "keyPattern", Value: bson.D{{Key: "x", Value: 1}}},
				{Key: "min", Value: bson.D{{Key: "x", Value: 0}}}, {Key: "max", Value: bson.D{{Key: "x", Value: 25}}}, {Key: "splitKeys", Value: bson.A{bson.D{{Key: "x", Value: 10}}}}}, 59},
		}
		for _, b := range bad {
			checkCode(t, admin.RunCommand(ctxT(t), b.cmd).Err(), b.code, b.what)
		}
		if after := chunks(); !slices.EqualFunc(before, after, func(a, b chunkRow) bool {
			return bound(a.Min) == bound(b.Min) && bound(a.Max) == bound(b.Max) && a.Lastmod == b.Lastmod && a.Shard == b.Shard
		}) {
			t.Fatalf("metadata changed by refused splits:\nbefore %+v\nafter  %+v", before, after)
		}
		// split is an admin command.
		checkCode(t, cl.Database("sp").RunCommand(ctxT(t), bson.D{{Key: "split", Value: "sp.c"}, {Key: "middle", Value: bson.D{{Key: "x", Value: 5}}}}).Err(), 13, "split on a non-admin database")
		checkData("after refused splits")
	})
}

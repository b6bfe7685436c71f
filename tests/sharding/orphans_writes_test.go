package sharding

import (
	"errors"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
)

// TestOrphansWrites is issue #12's orphan filtering beyond plain reads:
// on collections sharded on {x: "hashed"} holding orphans written straight
// to the shards (orphanSet), writes through the router change only owned
// documents (updateMany, an update command with multi: true, deleteMany,
// and the single-document writes without the shard key: updateOne,
// deleteOne, findOneAndUpdate, findOneAndDelete), their explain shows
// SHARDING_FILTER on each shard, and a client connected straight to a
// shard still changes orphans.
func TestOrphansWrites(t *testing.T) {
	tp, cl := startOrphanCluster(t)
	t.Run("updateMany", func(t *testing.T) { checkOrphanUpdateMany(t, makeOrphanSet(t, tp, cl, "ow", "upd")) })
	t.Run("deleteMany", func(t *testing.T) { checkOrphanDeleteMany(t, makeOrphanSet(t, tp, cl, "ow", "del")) })
	t.Run("without shard key", func(t *testing.T) { checkOrphanWritesOne(t, makeOrphanSet(t, tp, cl, "ow", "one")) })
	t.Run("explain", func(t *testing.T) {
		s := makeOrphanSet(t, tp, cl, "ow", "explain")
		db := s.routed.Database()
		for _, cmd := range []bson.D{
			{{Key: "delete", Value: s.coll}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "limit", Value: 0}}}}},
			{{Key: "update", Value: s.coll}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "g", Value: 1}}},
				{Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "u", Value: 1}}}}}, {Key: "multi", Value: true}}}}},
		} {
			ex := runExplain(t, db, cmd)
			stage := ex.Lookup("queryPlanner", "winningPlan", "stage").StringValue()
			for _, sh := range winningShards(t, ex, stage, 2) {
				if wp := sh.Lookup("winningPlan").Document(); wp.Lookup("stage").StringValue() != "SHARDING_FILTER" {
					t.Fatalf("explain %v: shard plan %s", cmd[0].Key, wp)
				}
			}
		}
		agg := runExplain(t, db, bson.D{{Key: "aggregate", Value: s.coll}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "g", Value: 1}}}}}},
			{Key: "cursor", Value: bson.D{}}})
		shards, err := agg.Lookup("shards").Document().Elements()
		must(t, err, "explain aggregate: shards of %s", agg)
		if len(shards) != 2 {
			t.Fatalf("explain aggregate: %d shards: %s", len(shards), agg)
		}
		for _, sh := range shards {
			if st := sh.Value().Document().Lookup("queryPlanner", "winningPlan", "stage"); st.StringValue() != "SHARDING_FILTER" {
				t.Fatalf("explain aggregate on %s: %s", sh.Key(), sh.Value())
			}
		}
		if n := s.orphanCount(t, "sh0") + s.orphanCount(t, "sh1"); n != 3 {
			t.Fatalf("explain changed orphans: %d left", n)
		}
	})
	t.Run("direct writes change orphans", func(t *testing.T) {
		s := makeOrphanSet(t, tp, cl, "ow", "direct")
		res, err := tp.shardClient(t, "sh1").Database("ow").Collection("direct").UpdateMany(ctxT(t), bson.D{{Key: "orphan", Value: true}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "u", Value: 1}}}})
		if err != nil || res.ModifiedCount != 2 || s.orphanCount(t, "sh1") != 2 {
			t.Fatalf("updateMany straight on sh1: %+v %v", res, err)
		}
	})
}

// checkOrphanUpdateMany: multi updates through the router (the driver's
// updateMany and an update command with multi: true) match and modify
// only owned documents.
func checkOrphanUpdateMany(t *testing.T, s *orphanSet) {
	set := bson.D{{Key: "$set", Value: bson.D{{Key: "u", Value: 1}}}}
	res, err := s.routed.UpdateMany(ctxT(t), bson.D{}, set)
	if err != nil || res.MatchedCount != owDocs || res.ModifiedCount != owDocs {
		t.Fatalf("updateMany {}: %+v %v, want %d matched and modified", res, err, owDocs)
	}
	if res, err = s.routed.UpdateMany(ctxT(t), bson.D{{Key: "g", Value: 9}}, set); err != nil || res.MatchedCount != 0 {
		t.Fatalf("updateMany {g: 9}: %+v %v, want none matched", res, err)
	}
	var reply struct {
		N, NModified int64
	}
	cmd := bson.D{{Key: "update", Value: s.coll}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "orphan", Value: true}}},
		{Key: "u", Value: bson.D{{Key: "$inc", Value: bson.D{{Key: "k", Value: 1}}}}}, {Key: "multi", Value: true}}}}}
	must(t, s.routed.Database().RunCommand(ctxT(t), cmd).Decode(&reply), "update multi {orphan: true}")
	if reply.N != 0 || reply.NModified != 0 {
		t.Fatalf("update multi {orphan: true}: %+v, want n 0", reply)
	}
	for _, sh := range []string{"sh0", "sh1"} {
		if got := s.shardAll(t, sh, bson.D{{Key: "orphan", Value: true}, {Key: "$or", Value: bson.A{
			bson.D{{Key: "u", Value: bson.D{{Key: "$exists", Value: true}}}}, bson.D{{Key: "k", Value: bson.D{{Key: "$exists", Value: true}}}}}}}); len(got) != 0 {
			t.Fatalf("orphans changed on %s: %v", sh, got)
		}
	}
}

// checkOrphanDeleteMany: deleteMany through the router deletes only owned
// documents; the orphans stay on their shards.
func checkOrphanDeleteMany(t *testing.T, s *orphanSet) {
	res, err := s.routed.DeleteMany(ctxT(t), bson.D{{Key: "orphan", Value: true}})
	if err != nil || res.DeletedCount != 0 {
		t.Fatalf("deleteMany {orphan: true}: %+v %v, want 0", res, err)
	}
	if res, err = s.routed.DeleteMany(ctxT(t), bson.D{}); err != nil || res.DeletedCount != owDocs {
		t.Fatalf("deleteMany {}: %+v %v, want %d", res, err, owDocs)
	}
	if n0, n1 := len(s.shardAll(t, "sh0", bson.D{})), len(s.shardAll(t, "sh1", bson.D{})); n0 != 1 || n1 != 2 {
		t.Fatalf("after deleteMany {} sh0 holds %d, sh1 %d documents, want their 1 and 2 orphans", n0, n1)
	}
}

// checkOrphanWritesOne: single-document writes without the shard key
// (two-phase) never choose an orphan, even one first in sort order.
func checkOrphanWritesOne(t *testing.T, s *orphanSet) {
	set := bson.D{{Key: "$set", Value: bson.D{{Key: "u", Value: 1}}}}
	if res, err := s.routed.UpdateOne(ctxT(t), bson.D{{Key: "orphan", Value: true}}, set); err != nil || res.MatchedCount != 0 {
		t.Fatalf("updateOne {orphan: true}: %+v %v", res, err)
	}
	if res, err := s.routed.DeleteOne(ctxT(t), bson.D{{Key: "_id", Value: "o1"}}); err != nil || res.DeletedCount != 0 {
		t.Fatalf("deleteOne {_id: o1}: %+v %v", res, err)
	}
	err := s.routed.FindOneAndDelete(ctxT(t), bson.D{{Key: "_id", Value: "o0"}}).Err()
	if !errors.Is(err, mongo.ErrNoDocuments) {
		t.Fatalf("findOneAndDelete {_id: o0}: %v, want no document", err)
	}
	var got bson.M
	must(t, s.routed.FindOneAndUpdate(ctxT(t), bson.D{}, set, options.FindOneAndUpdate().SetSort(bson.D{{Key: "g", Value: -1}, {Key: "_id", Value: 1}})).Decode(&got),
		"findOneAndUpdate sorted by g desc")
	if got["g"] != int32(3) || got["_id"] != int32(3) {
		t.Fatalf("findOneAndUpdate sorted by g desc chose %v, want _id 3", got)
	}
	// The owned document whose copy is an orphan on sh1: only the owned one changes.
	setV := bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: 1}}}}
	if res, err := s.routed.UpdateOne(ctxT(t), bson.D{{Key: "_id", Value: s.on0[0]}}, setV); err != nil || res.ModifiedCount != 1 {
		t.Fatalf("updateOne {_id: %d}: %+v %v", s.on0[0], res, err)
	}
	changed := bson.D{{Key: "orphan", Value: true}, {Key: "$or", Value: bson.A{bson.D{{Key: "u", Value: 1}}, bson.D{{Key: "v", Value: 1}}}}}
	if n := len(s.shardAll(t, "sh1", changed)); n != 0 || s.orphanCount(t, "sh1") != 2 || s.orphanCount(t, "sh0") != 1 {
		t.Fatalf("orphans changed: %d updated on sh1", n)
	}
}

// TestOrphansReadsMore is issue #12's orphan filtering on the reads
// TestOrphansFiltered does not cover: $lookup and
// $unionWith of a sharded collection (from an unsharded and from a
// sharded collection), aggregate's $count, count with and without a
// query, estimatedDocumentCount, and those reads with readPreference
// secondary, served by the shards' secondaries, which hold orphans too.
func TestOrphansReadsMore(t *testing.T) {
	tp, cl := startOrphanCluster(t)
	s := makeOrphanSet(t, tp, cl, "or", "c")
	local := cl.Database("or").Collection("local")
	_, err := local.InsertMany(ctxT(t), []any{bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: s.on0[0]}}, bson.D{{Key: "_id", Value: 2}, {Key: "x", Value: s.on1[0]}}})
	must(t, err, "insert or.local")
	t.Run("lookup from unsharded", func(t *testing.T) { checkOrphanLookups(t, s, local) })
	t.Run("lookup from sharded", func(t *testing.T) { checkOrphanLookups(t, s, s.routed) })
	t.Run("counts", func(t *testing.T) { checkOrphanCountsMore(t, s.routed, readpref.Primary()) })
	t.Run("readPreference secondary", func(t *testing.T) {
		s.waitSecondary(t, "sh0", bson.D{{Key: "orphan", Value: true}}, 1)
		s.waitSecondary(t, "sh1", bson.D{{Key: "orphan", Value: true}}, 2)
		sec := cl.Database("or", options.Database().SetReadPreference(readpref.Secondary())).Collection("c")
		if got := findIDs(t, sec, bson.D{}); len(got) != owDocs {
			t.Fatalf("find {} on secondaries: %d documents %v", len(got), got)
		}
		if got := findIDs(t, sec, bson.D{{Key: "orphan", Value: true}}); len(got) != 0 {
			t.Fatalf("find {orphan: true} on secondaries: %v", got)
		}
		checkOrphanCountsMore(t, sec, readpref.Secondary())
		secLocal := cl.Database("or", options.Database().SetReadPreference(readpref.Secondary())).Collection("local")
		checkOrphanLookups(t, s, secLocal)
	})
}

// checkOrphanLookups: from's documents with x of an owned document whose
// copy is an orphan on the other shard meet exactly one foreign document
// in $lookup (equality and sub-pipeline forms; relaydb has no
// $graphLookup yet); a
// $unionWith of the sharded collection adds owDocs documents.
func checkOrphanLookups(t *testing.T, s *orphanSet, from *mongo.Collection) {
	t.Helper()
	match := bson.D{{Key: "$match", Value: bson.D{{Key: "x", Value: bson.D{{Key: "$in", Value: bson.A{s.on0[0], s.on1[0]}}}}}}}
	sortID := bson.D{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}}
	stages := map[string]bson.D{
		"$lookup": {{Key: "$lookup", Value: bson.D{{Key: "from", Value: s.coll}, {Key: "localField", Value: "x"}, {Key: "foreignField", Value: "x"}, {Key: "as", Value: "m"}}}},
		"$lookup pipeline": {{Key: "$lookup", Value: bson.D{{Key: "from", Value: s.coll}, {Key: "let", Value: bson.D{{Key: "x", Value: "$x"}}},
			{Key: "pipeline", Value: bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "$expr", Value: bson.D{{Key: "$eq", Value: bson.A{"$x", "$$x"}}}}}}}}}, {Key: "as", Value: "m"}}}},
	}
	for name, st := range stages {
		rows := orphanAggregate(t, from, mongo.Pipeline{match, sortID, st})
		if len(rows) != 2 {
			t.Fatalf("%s: %d rows %v", name, len(rows), rows)
		}
		for _, r := range rows {
			if m, _ := r["m"].(bson.A); len(m) != 1 {
				t.Fatalf("%s: %v met %d documents, want 1 (no orphan)", name, r["_id"], len(m))
			}
		}
	}
	union := mongo.Pipeline{{{Key: "$project", Value: bson.D{{Key: "_id", Value: 1}}}}, {{Key: "$unionWith", Value: s.coll}},
		{{Key: "$match", Value: bson.D{{Key: "orphan", Value: bson.D{{Key: "$exists", Value: true}}}}}}}
	if rows := orphanAggregate(t, from, union); len(rows) != 0 {
		t.Fatalf("$unionWith then $match {orphan exists}: %v", rows)
	}
	n, err := from.CountDocuments(ctxT(t), bson.D{})
	must(t, err, "count the lookup source")
	union = mongo.Pipeline{{{Key: "$unionWith", Value: s.coll}}, {{Key: "$count", Value: "n"}}}
	if rows := orphanAggregate(t, from, union); len(rows) != 1 || fmt.Sprint(rows[0]["n"]) != fmt.Sprint(n+owDocs) {
		t.Fatalf("$unionWith then $count: %v, want %d", rows, n+owDocs)
	}
}

// checkOrphanCountsMore: $count, count with and without a query (run
// with read preference rp, coll's), estimatedDocumentCount and distinct
// count only owned documents.
func checkOrphanCountsMore(t *testing.T, coll *mongo.Collection, rp *readpref.ReadPref) {
	t.Helper()
	if rows := orphanAggregate(t, coll, mongo.Pipeline{{{Key: "$count", Value: "n"}}}); len(rows) != 1 || fmt.Sprint(rows[0]["n"]) != fmt.Sprint(owDocs) {
		t.Fatalf("$count: %v", rows)
	}
	for _, q := range []bson.D{nil, {}, {{Key: "g", Value: bson.D{{Key: "$gte", Value: 0}}}}, {{Key: "orphan", Value: true}}} {
		cmd := bson.D{{Key: "count", Value: coll.Name()}}
		if q != nil {
			cmd = append(cmd, bson.E{Key: "query", Value: q})
		}
		var res struct{ N int64 }
		must(t, coll.Database().RunCommand(ctxT(t), cmd, options.RunCmd().SetReadPreference(rp)).Decode(&res), "count %v", q)
		want := int64(owDocs)
		if len(q) > 0 && q[0].Key == "orphan" {
			want = 0
		}
		if res.N != want {
			t.Fatalf("count %v: %d, want %d", q, res.N, want)
		}
	}
	if n, err := coll.EstimatedDocumentCount(ctxT(t)); err != nil || n != owDocs {
		t.Fatalf("estimatedDocumentCount: %d %v", n, err)
	}
	var gs []int32
	must(t, coll.Distinct(ctxT(t), "g", bson.D{}).Decode(&gs), "distinct g")
	if fmt.Sprint(gs) != "[0 1 2 3]" {
		t.Fatalf("distinct g: %v", gs)
	}
}

// orphanAggregate runs pipe on coll and returns every result.
func orphanAggregate(t *testing.T, coll *mongo.Collection, pipe mongo.Pipeline) []bson.M {
	t.Helper()
	cur, err := coll.Aggregate(ctxT(t), pipe)
	must(t, err, "aggregate %v", pipe)
	var rows []bson.M
	must(t, cur.All(ctxT(t), &rows), "aggregate %v", pipe)
	return rows
}

// TestOrphansAfterMigration: the orphans a chunk migration leaves on the
// donor (its copy of the moved range, kept while the delayed range
// deletion waits orphanCleanupDelaySecs) are in no result and no write
// through the router: find, count, estimatedDocumentCount, $lookup,
// reads on secondaries, updateMany and deleteMany; the donor's
// $collStats counts them in numOrphanDocs and the router's
// $shardedDataDistribution as numOrphanedDocs; then, with the delay at 0,
// cleanupOrphaned on the donor deletes exactly them.
func TestOrphansAfterMigration(t *testing.T) {
	tp, cl := startOrphanCluster(t)
	admin := cl.Database("admin")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "om.c"}, {Key: "key", Value: bson.D{{Key: "x", Value: 1}}}}).Err(), "shardCollection")
	coll := cl.Database("om").Collection("c")
	const n = 200
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "x", Value: int32(i)}, {Key: "g", Value: int32(i % 4)}}
	}
	_, err := coll.InsertMany(ctxT(t), docs)
	must(t, err, "insert")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "split", Value: "om.c"}, {Key: "middle", Value: bson.D{{Key: "x", Value: int32(100)}}}}).Err(), "split")
	donor := chunkOwner(t, tp, "om.c", 150)
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "moveChunk", Value: "om.c"}, {Key: "find", Value: bson.D{{Key: "x", Value: int32(150)}}},
		{Key: "to", Value: otherShard(donor)}}).Err(), "moveChunk [100, MaxKey)")
	s := &orphanSet{tp: tp, db: "om", coll: "c", routed: coll}
	moved := bson.D{{Key: "x", Value: bson.D{{Key: "$gte", Value: int32(100)}}}}
	if got := len(s.shardAll(t, donor, moved)); got != n/2 {
		t.Fatalf("the donor %s holds %d documents of the moved range, want its %d orphans", donor, got, n/2)
	}
	if got := s.numOrphanDocs(t, donor); got != n/2 {
		t.Fatalf("the donor's $collStats numOrphanDocs is %d, want %d", got, n/2)
	}
	want := map[string]string{donor: fmt.Sprintf("%d/%d", n/2, n/2), otherShard(donor): fmt.Sprintf("0/%d", n/2)}
	if got := s.distribution(t); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("$shardedDataDistribution (orphaned/owned): %v, want %v", got, want)
	}

	if got := findIDs(t, coll, bson.D{}); len(got) != n {
		t.Fatalf("find {}: %d documents", len(got))
	}
	if c, err := coll.CountDocuments(ctxT(t), bson.D{}); err != nil || c != n {
		t.Fatalf("countDocuments: %d %v", c, err)
	}
	if c, err := coll.EstimatedDocumentCount(ctxT(t)); err != nil || c != n {
		t.Fatalf("estimatedDocumentCount: %d %v", c, err)
	}
	local := cl.Database("om").Collection("local")
	_, err = local.InsertOne(ctxT(t), bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: int32(150)}})
	must(t, err, "insert om.local")
	look := mongo.Pipeline{{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "c"}, {Key: "localField", Value: "x"}, {Key: "foreignField", Value: "x"}, {Key: "as", Value: "m"}}}}}
	if rows := orphanAggregate(t, local, look); len(rows) != 1 || len(rows[0]["m"].(bson.A)) != 1 {
		t.Fatalf("$lookup of x 150: %v", rows)
	}
	s.waitSecondary(t, donor, moved, n/2)
	sec := cl.Database("om", options.Database().SetReadPreference(readpref.Secondary())).Collection("c")
	if got := findIDs(t, sec, bson.D{}); len(got) != n {
		t.Fatalf("find {} on secondaries: %d documents", len(got))
	}

	res, err := coll.UpdateMany(ctxT(t), bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "u", Value: 1}}}})
	if err != nil || res.MatchedCount != n {
		t.Fatalf("updateMany {}: %+v %v", res, err)
	}
	del, err := coll.DeleteMany(ctxT(t), bson.D{{Key: "g", Value: 0}})
	if err != nil || del.DeletedCount != n/4 {
		t.Fatalf("deleteMany {g: 0}: %+v %v", del, err)
	}
	if got := len(s.shardAll(t, donor, moved)); got != n/2 {
		t.Fatalf("the donor holds %d orphans after the writes, want %d", got, n/2)
	}
	if got := s.shardAll(t, donor, append(moved, bson.E{Key: "u", Value: 1})); len(got) != 0 {
		t.Fatalf("updateMany changed the donor's orphans %v", got)
	}

	donorAdmin := tp.shardClient(t, donor).Database("admin")
	must(t, donorAdmin.RunCommand(ctxT(t), bson.D{{Key: "setParameter", Value: 1}, {Key: "orphanCleanupDelaySecs", Value: 0}}).Err(), "setParameter")
	must(t, donorAdmin.RunCommand(ctxT(t), bson.D{{Key: "cleanupOrphaned", Value: "om.c"}}).Err(), "cleanupOrphaned")
	if got := len(s.shardAll(t, donor, bson.D{})); got != n/2-n/8 {
		t.Fatalf("after cleanupOrphaned the donor holds %d documents, want %d (its own, less the deleted)", got, n/2-n/8)
	}
	if c, err := coll.CountDocuments(ctxT(t), bson.D{}); err != nil || c != n-n/4 {
		t.Fatalf("countDocuments after the cleanup: %d %v", c, err)
	}
	if got := s.numOrphanDocs(t, donor); got != 0 {
		t.Fatalf("after cleanupOrphaned the donor's numOrphanDocs is %d", got)
	}
}

package sharding

import (
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

// owDocs is how many documents the router inserts in each collection of
// TestOrphansWrites.
const owDocs = 40

// orphanSet is a collection sharded on {x: "hashed"} holding owDocs
// documents {_id: i, x: i, g: i % 4} written through the router, and
// three orphans written straight to the shards: on sh1 a copy of a
// document sh0 owns (same _id and x) and "o1" with that x; on sh0 "o0"
// with an x sh1 owns. Every orphan has g 9 and orphan: true.
type orphanSet struct {
	tp       *topo
	db, coll string
	routed   *mongo.Collection // through the router
	on0, on1 []int32           // _ids (= x) each shard owns
}

// startOrphanCluster starts a cluster as startTopo does, but both shards
// have a read-only secondary (so a readPreference secondary read reaches
// both), and adds both shards.
func startOrphanCluster(t *testing.T) (*topo, *mongo.Client) {
	t.Helper()
	sets := startSets(t, []cluster.Spec{
		{Name: "cfg", ExtraArgs: []string{"--configsvr"}},
		{Name: "sh0", ExtraArgs: []string{"--shardsvr"}, ReadOnly: 1},
		{Name: "sh1", ExtraArgs: []string{"--shardsvr"}, ReadOnly: 1},
	})
	tp := &topo{cfg: sets[0], shards: map[string]*cluster.Cluster{"sh0": sets[1], "sh1": sets[2]}}
	tp.router = harness.StartRouter(t, "cfg/"+sets[0].Members()[0].Host)
	cl, _ := connectRouter(t, tp)
	for _, name := range []string{"sh0", "sh1"} {
		must(t, cl.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	return tp, cl
}

// makeOrphanSet shards db.coll, fills it through the router and writes
// its orphans straight to the shards (majority, so sh1's secondary gets
// them too).
func makeOrphanSet(t *testing.T, tp *topo, cl *mongo.Client, db, coll string) *orphanSet {
	t.Helper()
	must(t, cl.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: db + "." + coll},
		{Key: "key", Value: bson.D{{Key: "x", Value: "hashed"}}}}).Err(), "shardCollection %s.%s", db, coll)
	s := &orphanSet{tp: tp, db: db, coll: coll, routed: cl.Database(db).Collection(coll)}
	docs := make([]any, owDocs)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "x", Value: int32(i)}, {Key: "g", Value: int32(i % 4)}}
	}
	_, err := s.routed.InsertMany(ctxT(t), docs)
	must(t, err, "insert through the router")
	s.on0, s.on1 = s.shardIDs(t, "sh0", bson.D{}), s.shardIDs(t, "sh1", bson.D{})
	if len(s.on0) == 0 || len(s.on1) == 0 || len(s.on0)+len(s.on1) != owDocs {
		t.Fatalf("placement: sh0 %v, sh1 %v", s.on0, s.on1)
	}
	orphan := func(id any, x int32) bson.D {
		return bson.D{{Key: "_id", Value: id}, {Key: "x", Value: x}, {Key: "g", Value: int32(9)}, {Key: "orphan", Value: true}}
	}
	s.direct(t, "sh1", orphan(s.on0[0], s.on0[0]), orphan("o1", s.on0[0]))
	s.direct(t, "sh0", orphan("o0", s.on1[0]))
	return s
}

// direct inserts docs straight into shard's primary (no shardVersion).
func (s *orphanSet) direct(t *testing.T, shard string, docs ...any) {
	t.Helper()
	_, err := s.tp.shardClient(t, shard).Database(s.db).Collection(s.coll).InsertMany(ctxT(t), docs)
	must(t, err, "insert orphans on %s", shard)
}

// shardIDs are the int32 _ids of the documents matching filter on
// shard's primary, read directly (orphans included), in _id order.
func (s *orphanSet) shardIDs(t *testing.T, shard string, filter bson.D) []int32 {
	t.Helper()
	var ids []int32
	for _, id := range s.shardAll(t, shard, filter) {
		if n, ok := id.(int32); ok {
			ids = append(ids, n)
		}
	}
	return ids
}

// shardAll are the _ids of the documents matching filter on shard's
// primary, read directly, in _id order.
func (s *orphanSet) shardAll(t *testing.T, shard string, filter bson.D) []any {
	t.Helper()
	c := s.tp.shardClient(t, shard).Database(s.db).Collection(s.coll)
	cur, err := c.Find(ctxT(t), filter, optsSortID())
	must(t, err, "find on %s", shard)
	var rows []bson.M
	must(t, cur.All(ctxT(t), &rows), "read %s", shard)
	ids := make([]any, len(rows))
	for i, r := range rows {
		ids[i] = r["_id"]
	}
	return ids
}

// orphanCount is how many orphans shard holds (read directly).
func (s *orphanSet) orphanCount(t *testing.T, shard string) int {
	t.Helper()
	return len(s.shardAll(t, shard, bson.D{{Key: "orphan", Value: true}}))
}

// waitSecondary waits (bounded) until shard's secondary holds n
// documents of the collection matching filter.
func (s *orphanSet) waitSecondary(t *testing.T, shard string, filter bson.D, n int64) {
	t.Helper()
	c := s.tp.shards[shard]
	if len(c.Members()) < 2 {
		t.Fatalf("%s has no secondary", shard)
	}
	sec, err := c.Client(c.Members()[1])
	must(t, err, "connect to %s's secondary", shard)
	deadline := time.Now().Add(15 * time.Second)
	for {
		got, err := sec.Database(s.db).Collection(s.coll).CountDocuments(ctxT(t), filter)
		if err == nil && got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s's secondary holds %d documents matching %v (%v), want %d", shard, got, filter, err, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// optsSortID sorts a find by _id.
func optsSortID() *options.FindOptionsBuilder {
	return options.Find().SetSort(bson.D{{Key: "_id", Value: 1}})
}

// numOrphanDocs is shard's $collStats storageStats.numOrphanDocs of the
// collection (read directly).
func (s *orphanSet) numOrphanDocs(t *testing.T, shard string) int64 {
	t.Helper()
	c := s.tp.shardClient(t, shard).Database(s.db).Collection(s.coll)
	cur, err := c.Aggregate(ctxT(t), mongo.Pipeline{{{Key: "$collStats", Value: bson.D{{Key: "storageStats", Value: bson.D{}}}}}})
	must(t, err, "$collStats on %s", shard)
	var rows []struct {
		StorageStats struct {
			NumOrphanDocs int64 `bson:"numOrphanDocs"`
		} `bson:"storageStats"`
	}
	must(t, cur.All(ctxT(t), &rows), "$collStats on %s", shard)
	if len(rows) != 1 {
		t.Fatalf("$collStats on %s: %d rows", shard, len(rows))
	}
	return rows[0].StorageStats.NumOrphanDocs
}

// distribution is the router's $shardedDataDistribution entry of the
// collection: per shard, "orphaned/owned" documents.
func (s *orphanSet) distribution(t *testing.T) map[string]string {
	t.Helper()
	cur, err := s.routed.Database().Client().Database("admin").Aggregate(ctxT(t), bson.A{
		bson.D{{Key: "$shardedDataDistribution", Value: bson.D{}}},
		bson.D{{Key: "$match", Value: bson.D{{Key: "ns", Value: s.db + "." + s.coll}}}},
	})
	must(t, err, "$shardedDataDistribution")
	var out []struct {
		Shards []struct {
			Name     string `bson:"shardName"`
			Orphaned int64  `bson:"numOrphanedDocs"`
			Owned    int64  `bson:"numOwnedDocuments"`
		} `bson:"shards"`
	}
	must(t, cur.All(ctxT(t), &out), "$shardedDataDistribution")
	if len(out) != 1 {
		t.Fatalf("$shardedDataDistribution of %s.%s: %+v", s.db, s.coll, out)
	}
	m := map[string]string{}
	for _, sh := range out[0].Shards {
		m[sh.Name] = fmt.Sprintf("%d/%d", sh.Orphaned, sh.Owned)
	}
	return m
}

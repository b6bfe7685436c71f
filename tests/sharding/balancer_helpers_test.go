package sharding

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/relaydb/relaydb/tests/harness"
)

// firstMember is a direct client to the config server set's only member.
func firstMember(t *testing.T, tp *topo) *mongo.Client {
	t.Helper()
	return harness.FirstMemberClient(t, tp.cfg)
}

// sortedChunks lists bal.c's chunks by min (config.chunks through the
// router).
func sortedChunks(t *testing.T, cl *mongo.Client) []chunkRow {
	t.Helper()
	var coll struct {
		UUID bson.Binary `bson:"uuid"`
	}
	must(t, cl.Database("config").Collection("collections").FindOne(ctxT(t), bson.D{{Key: "_id", Value: "bal.c"}}).Decode(&coll), "config.collections")
	cur, err := cl.Database("config").Collection("chunks").Find(ctxT(t), bson.D{{Key: "uuid", Value: coll.UUID}})
	must(t, err, "config.chunks")
	var rows []chunkRow
	must(t, cur.All(ctxT(t), &rows), "config.chunks")
	slices.SortFunc(rows, func(a, b chunkRow) int { return compareBounds(bound(a.Min), bound(b.Min)) })
	return rows
}

// chunkOwners lists bal.c's chunks as "min:shard", by min.
func chunkOwners(t *testing.T, cl *mongo.Client) []string {
	t.Helper()
	rows := sortedChunks(t, cl)
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = keyString(bound(r.Min)) + ":" + r.Shard
	}
	return out
}

// compareBounds orders bound() values: "min" first, "max" last, numbers
// between.
func compareBounds(x, y any) int {
	rank := func(v any) int {
		switch v {
		case "min":
			return 0
		case "max":
			return 2
		}
		return 1
	}
	if rx, ry := rank(x), rank(y); rx != ry || rx != 1 {
		return rx - ry
	}
	return x.(int) - y.(int)
}

func keyString(v any) string { return bson.D{{Key: "k", Value: v}}.String() }

// balancerStatus is the router's balancerStatus reply.
func balancerStatus(t *testing.T, admin *mongo.Database) bson.M {
	t.Helper()
	var st bson.M
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "balancerStatus", Value: 1}}).Decode(&st), "balancerStatus")
	return st
}

// waitRounds waits until n more balancer rounds ended and returns the
// status then.
func waitRounds(t *testing.T, admin *mongo.Database, n int64) bson.M {
	t.Helper()
	rounds := func(st bson.M) int64 {
		v, _ := st["numBalancerRounds"].(int64)
		return v
	}
	start := rounds(balancerStatus(t, admin))
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := balancerStatus(t, admin)
		if rounds(st) >= start+n && st["inBalancerRound"] == false {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d balancer rounds in 30 s: %v", n, st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// shardCollSize is bal.c's collSize on a shard (_shardsvrGetStatsForBalancing).
func shardCollSize(t *testing.T, shard *mongo.Client) int64 {
	t.Helper()
	var res struct {
		Stats []struct {
			NS   string `bson:"namespace"`
			Size int64  `bson:"collSize"`
		} `bson:"stats"`
	}
	must(t, shard.Database("admin").RunCommand(ctxT(t), bson.D{
		{Key: "_shardsvrGetStatsForBalancing", Value: 1}, {Key: "collections", Value: bson.A{"bal.c"}},
	}).Decode(&res), "_shardsvrGetStatsForBalancing")
	if len(res.Stats) != 1 || res.Stats[0].NS != "bal.c" {
		t.Fatalf("_shardsvrGetStatsForBalancing: %+v", res)
	}
	return res.Stats[0].Size
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// collectionStatus renders balancerCollectionStatus's reply as
// "chunkSize balancerCompliant firstComplianceViolation".
func collectionStatus(t *testing.T, admin *mongo.Database, ns string) string {
	t.Helper()
	var st bson.M
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "balancerCollectionStatus", Value: ns}}).Decode(&st), "balancerCollectionStatus")
	return fmt.Sprint(st["chunkSize"], " ", st["balancerCompliant"], " ", st["firstComplianceViolation"])
}

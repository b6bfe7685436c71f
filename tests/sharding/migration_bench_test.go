package sharding

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// BenchmarkMoveChunk measures one migration's speed on loopback: a chunk
// of benchDocs documents of about 1 KiB moves from one shard to the other;
// it reports MiB/s of documents moved per migration (issue #12's goal:
// at least 32 MiB/s). Each iteration moves a new collection's only chunk
// (loaded outside the timer), so no range deletion is waited for.
//
//	go test ./tests/sharding -run '^$' -bench MoveChunk -benchtime 4x
func BenchmarkMoveChunk(b *testing.B) {
	const benchDocs = 40000
	tp := startTopo(b)
	cl, _ := connectRouter(b, tp)
	admin := cl.Database("admin")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for _, name := range []string{"sh0", "sh1"} {
		must(b, admin.RunCommand(ctx, bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard")
	}
	pad := strings.Repeat("p", 1000)
	var bytes int64
	var total time.Duration
	for i := range b.N {
		b.StopTimer()
		ns := fmt.Sprintf("bm.c%d", i)
		must(b, admin.RunCommand(ctx, bson.D{{Key: "shardCollection", Value: ns}, {Key: "key", Value: bson.D{{Key: "x", Value: 1}}}}).Err(), "shardCollection")
		coll := cl.Database("bm").Collection(fmt.Sprintf("c%d", i))
		for start := 0; start < benchDocs; start += 1000 {
			docs := make([]any, 1000)
			for j := range docs {
				d := bson.D{{Key: "_id", Value: int32(start + j)}, {Key: "x", Value: int32(start + j)}, {Key: "pad", Value: pad}}
				raw, _ := bson.Marshal(d)
				bytes += int64(len(raw))
				docs[j] = d
			}
			_, err := coll.InsertMany(ctx, docs)
			must(b, err, "load")
		}
		var chunk bson.M
		must(b, cl.Database("config").Collection("chunks").FindOne(ctx, bson.D{}, options.FindOne().SetSort(bson.D{{Key: "_id", Value: -1}})).Decode(&chunk), "chunk")
		owner, _ := chunk["shard"].(string)
		b.StartTimer()
		start := time.Now()
		must(b, admin.RunCommand(ctx, bson.D{{Key: "moveChunk", Value: ns}, {Key: "find", Value: bson.D{{Key: "x", Value: int32(1)}}},
			{Key: "to", Value: otherShard(owner)}}).Err(), "move %d", i)
		total += time.Since(start)
	}
	b.ReportMetric(float64(bytes)/(1<<20)/total.Seconds(), "MiB/s")
}

package agg

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// BenchmarkStreaming: the streaming stages ($match, $unwind, $project,
// $skip, $limit), one iterator call per document per stage.
func BenchmarkStreaming(b *testing.B) {
	docs := make([]bson.D, 10000)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "k", Value: int32(i % 10)}, {Key: "arr", Value: bson.A{int32(1), int32(2)}}}
	}
	p, err := Compile(bson.A{
		bson.D{{Key: "$match", Value: bson.D{{Key: "k", Value: bson.D{{Key: "$lt", Value: int32(5)}}}}}},
		bson.D{{Key: "$unwind", Value: "$arr"}},
		bson.D{{Key: "$project", Value: bson.D{{Key: "k", Value: 1}, {Key: "arr", Value: 1}}}},
		bson.D{{Key: "$skip", Value: int32(10)}},
		bson.D{{Key: "$limit", Value: int32(9000)}},
	}, Env{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		out, err := Drain(p.Run(Slice(docs)))
		if err != nil || len(out) != 9000 {
			b.Fatalf("%d docs, %v", len(out), err)
		}
	}
}

package catalog

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// BenchmarkEngineSnapshot measures a Pebble snapshot's create+close cost,
// which decides how often committed snapshots may be taken.
func BenchmarkEngineSnapshot(b *testing.B) {
	c := openMem(b)
	coll := mustColl(b, c, "db", "c")
	for i := 0; i < 1000; i++ {
		mustInsert(b, c, coll, d("_id", int32(i)))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := c.eng.NewSnapshot()
		_ = s.Close()
	}
}

// BenchmarkInsertUnderMajorityTracking is BenchmarkInsert with committed
// snapshots kept (a replica set whose commit point lags).
func BenchmarkInsertUnderMajorityTracking(b *testing.B) {
	c := openMem(b)
	coll := mustColl(b, c, "db", "c")
	c.SetCommitPoint(bson.Timestamp{T: 1})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		doc := bson.D{{Key: "_id", Value: int64(i)}, {Key: "n", Value: int64(i % 100)}}
		if _, err := c.Insert(coll, doc); err != nil {
			b.Fatal(err)
		}
	}
}

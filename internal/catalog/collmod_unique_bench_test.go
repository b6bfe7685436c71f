package catalog

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// BenchmarkInsertIndexed compares inserts into a collection with one
// secondary index {n: 1}: plain, prepareUnique (a batch-iterator probe per
// key) and unique (a point read per key). Keys are distinct.
func BenchmarkInsertIndexed(b *testing.B) {
	for _, tc := range []struct {
		name string
		opts []any
	}{{"plain", nil}, {"prepareUnique", []any{"prepareUnique", true}}, {"unique", []any{"unique", true}}} {
		b.Run(tc.name, func(b *testing.B) {
			c := openMem(b)
			coll := mustColl(b, c, "db", "c")
			mustIndex(b, c, coll, spec("n_1", d("n", 1), tc.opts...))
			coll = c.Collection("db", "c")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				doc := bson.D{{Key: "_id", Value: int64(i)}, {Key: "n", Value: int64(i)}, {Key: "v", Value: "payload"}}
				if _, err := c.Insert(coll, doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkConvertUnique measures collMod {unique: true} (the duplicate
// scan and the rewrite of every entry) on a 50,000-entry index.
func BenchmarkConvertUnique(b *testing.B) {
	const n = 50000
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c := openMem(b)
		coll := mustColl(b, c, "db", "c")
		mustIndex(b, c, coll, spec("n_1", d("n", 1), "prepareUnique", true))
		coll = c.Collection("db", "c")
		for j := 0; j < n; j++ {
			mustInsert(b, c, coll, d("_id", int32(j), "n", int32(j)))
		}
		b.StartTimer()
		if _, _, err := c.CollModIndex("db", "c", bson.D{{Key: "index", Value: d("name", "n_1", "unique", true)}}); err != nil {
			b.Fatal(err)
		}
	}
}

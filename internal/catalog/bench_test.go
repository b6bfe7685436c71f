package catalog

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func BenchmarkFindByID(b *testing.B) {
	c := openMem(b)
	coll := mustColl(b, c, "db", "c")
	const n = 10000
	for i := 0; i < n; i++ {
		mustInsert(b, c, coll, d("_id", int32(i), "v", "some value", "n", int64(i)))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok, err := coll.FindByID(int32(i % n)); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkInsert(b *testing.B) {
	c := openMem(b)
	coll := mustColl(b, c, "db", "c")
	mustIndex(b, c, coll, spec("n_1", d("n", 1)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		doc := bson.D{{Key: "_id", Value: int64(i)}, {Key: "n", Value: int64(i % 100)}, {Key: "v", Value: "payload"}}
		if _, err := c.Insert(coll, doc); err != nil {
			b.Fatal(err)
		}
	}
}

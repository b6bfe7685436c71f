package applier

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// BenchmarkApplyInsert measures a secondary applying insert entries (one
// storage batch each) against the primary's write of the same entries.
func BenchmarkApplyInsert(b *testing.B) {
	p := openMem(b)
	coll := mustColl(b, p, "app", "c")
	mustIndex(b, p, coll, spec("x_1", d("x", 1)))
	for i := 0; i < b.N; i++ {
		mustInsert(b, p, coll, bson.D{{Key: "_id", Value: int64(i)}, {Key: "x", Value: int64(i % 100)},
			{Key: "pad", Value: "0123456789012345678901234567890123456789"}})
	}
	entries := entriesOf(b, p)
	s := openMem(b)
	b.ResetTimer()
	for i := 0; i < len(entries); i += 500 {
		if err := applyBatch(s, entries[i:min(i+500, len(entries))]); err != nil {
			b.Fatal(err)
		}
	}
}

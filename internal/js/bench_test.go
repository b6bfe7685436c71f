package js

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// BenchmarkWhere is one $where evaluation on a small document (conversion,
// call, interrupt timer).
func BenchmarkWhere(b *testing.B) {
	pred, err := NewSession(Options{}).Where("this.x < 3 && this.s == 'a'")
	if err != nil {
		b.Fatal(err)
	}
	doc := bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "x", Value: int32(2)}, {Key: "s", Value: "a"},
		{Key: "sub", Value: bson.D{{Key: "a", Value: bson.A{1.5, "b", int64(3)}}}}}
	b.ReportAllocs()
	for b.Loop() {
		if ok, err := pred(doc); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

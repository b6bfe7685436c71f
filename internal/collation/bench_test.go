package collation

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func benchCollator(b *testing.B) *Collator {
	s, err := Parse(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: int32(2)}})
	if err != nil {
		b.Fatal(err)
	}
	return New(s)
}

func BenchmarkCompareString(b *testing.B) {
	c := benchCollator(b)
	x, y := "The quick brown fox", "the quick brown fox jumps"
	for b.Loop() {
		c.CompareString(x, y)
	}
}

func BenchmarkCompareBinary(b *testing.B) {
	x, y := "The quick brown fox", "the quick brown fox jumps"
	for b.Loop() {
		strings.Compare(x, y)
	}
}

func BenchmarkKey(b *testing.B) {
	c := benchCollator(b)
	for b.Loop() {
		c.Key("The quick brown fox")
	}
}

package key

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

var fuzzPatterns = []Pattern{
	MustParse(bson.D{{Key: "a", Value: int32(1)}}),
	MustParse(bson.D{{Key: "a.b", Value: int32(1)}, {Key: "c", Value: int32(1)}}),
	MustParse(bson.D{{Key: "a", Value: "hashed"}}),
	MustParse(bson.D{{Key: "c", Value: int32(1)}, {Key: "a.b", Value: "hashed"}}),
}

func fuzzSeed(f *testing.F, doc bson.D) {
	raw, err := bsonx.Encode(doc)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
}

// FuzzExtract: for any decodable document, Extract either refuses it with
// an error or returns a key with the pattern's fields in order, the hashed
// one an int64; it never panics.
func FuzzExtract(f *testing.F) {
	fuzzSeed(f, bson.D{{Key: "a", Value: int32(1)}})
	fuzzSeed(f, bson.D{{Key: "a", Value: bson.D{{Key: "b", Value: "x"}}}, {Key: "c", Value: 2.5}})
	fuzzSeed(f, bson.D{{Key: "a", Value: bson.A{int32(1)}}})
	fuzzSeed(f, bson.D{{Key: "a", Value: bson.CodeWithScope{Code: "f", Scope: bson.D{{Key: "x", Value: bson.A{}}}}}})
	fuzzSeed(f, bson.D{{Key: "c", Value: bson.Regex{Pattern: "x", Options: "mi"}}})
	f.Fuzz(func(t *testing.T, raw []byte) {
		doc, err := bsonx.Decode(raw)
		if err != nil {
			return
		}
		for _, p := range fuzzPatterns {
			checkExtract(t, p, doc)
		}
	})
}

func checkExtract(t *testing.T, p Pattern, doc bson.D) {
	k, err := p.Extract(doc)
	if err != nil {
		return
	}
	if len(k) != p.Len() {
		t.Fatalf("%s.Extract(%s) = %s: wrong length", p, Format(doc), Format(k))
	}
	for i, f := range p.Fields() {
		if k[i].Key != f.Path {
			t.Fatalf("%s.Extract: field %d is %q", p, i, k[i].Key)
		}
		if _, ok := k[i].Value.(int64); f.Hashed && !ok {
			t.Fatalf("%s.Extract: hashed field is %T", p, k[i].Value)
		}
		if isArray(k[i].Value) {
			t.Fatalf("%s.Extract: array in key", p)
		}
	}
	if Compare(k, k) != 0 {
		t.Fatalf("key %s does not equal itself", Format(k))
	}
}

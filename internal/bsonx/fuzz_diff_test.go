package bsonx_test

import (
	"math/rand"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/bsonx/bsonxtest"
)

// fuzzSeeds are valid documents of every type plus random ones.
func fuzzSeeds() [][]byte {
	seeds := [][]byte{mustRaw(allTypes()), {5, 0, 0, 0, 0}, ycsbInsert(), ycsbFind(), storedDoc()}
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 20; i++ {
		seeds = append(seeds, mustRaw(bsonxtest.RandomDoc(r, 3)))
	}
	return seeds
}

// FuzzDecodeDifferential: Decode accepts exactly the input the former
// decoder accepted, with the same error otherwise, and yields the same
// values, none aliasing the input.
func FuzzDecodeDifferential(f *testing.F) {
	for i, s := range fuzzSeeds() {
		f.Add(s, uint8(i))
	}
	f.Fuzz(func(t *testing.T, raw []byte, depth uint8) {
		checkDecode(t, raw, bsonx.MaxWireDepth)
		checkDecode(t, raw, 1+int(depth%8))
	})
}

// FuzzEncodeDifferential: Encode writes what bson.Marshal writes for any
// document Decode yields and for random documents holding the Go values a
// caller may build.
func FuzzEncodeDifferential(f *testing.F) {
	for i, s := range fuzzSeeds() {
		f.Add(s, int64(i))
	}
	f.Fuzz(func(t *testing.T, raw []byte, seed int64) {
		if doc, err := bsonx.Decode(raw); err == nil {
			checkEncode(t, doc)
		}
		r := rand.New(rand.NewSource(seed))
		doc := bsonxtest.RandomDoc(r, 3)
		vals := goValues()
		for i := r.Intn(3); i > 0; i-- {
			v := vals[r.Intn(len(vals))]
			doc = append(doc, bson.E{Key: "g", Value: bson.A{v, bson.D{{Key: "v", Value: v}}}})
		}
		checkEncode(t, doc)
	})
}

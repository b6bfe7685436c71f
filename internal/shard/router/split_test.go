package router

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/query"
	"github.com/relaydb/relaydb/internal/shard/key"
)

// TestChunkFilter checks that the filter medianKey sends a shard matches
// exactly the documents whose compound shard key lies in the chunk, for
// bounds mixing values, MinKey and MaxKey.
func TestChunkFilter(t *testing.T) {
	p := key.MustParse(bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 1}})
	k := func(a, b any) bson.D { return bson.D{{Key: "a", Value: a}, {Key: "b", Value: b}} }
	minK, maxK := bson.MinKey{}, bson.MaxKey{}
	bounds := [][2]bson.D{
		{k(minK, minK), k(maxK, maxK)},
		{k(minK, minK), k(2, 3)},
		{k(1, minK), k(3, minK)},
		{k(1, 2), k(1, 4)},
		{k(1, 2), k(3, maxK)},
		{k(2, maxK), k(maxK, maxK)},
		{k(0, 0), k(4, 4)},
	}
	var docs []bson.D
	for a := 0; a < 5; a++ {
		for b := 0; b < 5; b++ {
			docs = append(docs, bson.D{{Key: "_id", Value: a*10 + b}, {Key: "a", Value: int32(a)}, {Key: "b", Value: int32(b)}})
		}
	}
	for _, bd := range bounds {
		for _, strict := range []bool{false, true} {
			f := chunkFilter(p, bd[0], strict, bd[1])
			m, err := query.Compile(f)
			if err != nil {
				t.Fatalf("filter %v: %v", f, err)
			}
			for _, d := range docs {
				dk, _ := p.Extract(d)
				lo := key.Compare(bd[0], dk)
				want := (lo < 0 || (lo == 0 && !strict)) && key.Compare(dk, bd[1]) < 0
				if got := m.Match(d); got != want {
					t.Errorf("[%s, %s) strict=%t: key %s matched %t, want %t (filter %v)",
						key.Format(bd[0]), key.Format(bd[1]), strict, key.Format(dk), got, want, f)
				}
			}
		}
	}
}

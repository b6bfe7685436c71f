package routing

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/query"
	"github.com/relaydb/relaydb/internal/shard/key"
)

// soundValues are the values random filters and documents draw from:
// every type bracket the chunks split, edges, and the awkward ones.
var soundValues = func() []any {
	dec := func(s string) bson.Decimal128 { d, _ := bson.ParseDecimal128(s); return d }
	return []any{
		nil, int32(0), int32(5), int64(10), 1.5, -1.0, math.NaN(), math.Inf(1), dec("10"),
		dec("1.5"), dec("-2.5"), -2.5, math.Pow(2, 63), dec("9223372036854775808"),
		"a", "m", "z", bson.Symbol("m"), bson.D{}, bson.D{{Key: "c", Value: int32(5)}},
		bson.D{{Key: "c", Value: int32(0)}}, bson.D{{Key: "c", Value: 1.5}}, bson.D{{Key: "c", Value: dec("1.5")}},
		bson.MinKey{}, bson.MaxKey{}, true,
		bson.A{int32(0), int32(5)}, bson.Regex{Pattern: "^m"}, bson.Undefined{},
	}
}()

type filterGen struct{ r *rand.Rand }

func (g filterGen) value() any { return soundValues[g.r.IntN(len(soundValues))] }

func (g filterGen) field() string { return []string{"a", "a", "b.c", "b", "c"}[g.r.IntN(5)] }

func (g filterGen) operand() any {
	ops := []string{"$eq", "$in", "$gt", "$gte", "$lt", "$lte", "$ne", "$nin", "$exists"}
	switch g.r.IntN(4) {
	case 0:
		return g.value()
	case 1:
		return bson.D{{Key: "$not", Value: bson.D{{Key: "$gt", Value: g.value()}}}}
	}
	var d bson.D
	for n := 1 + g.r.IntN(2); n > 0; n-- {
		op := ops[g.r.IntN(len(ops))]
		var v any = g.value()
		switch op {
		case "$in", "$nin":
			v = bson.A{g.value(), g.value()}
		case "$exists":
			v = g.r.IntN(2) == 0
		}
		d = append(d, bson.E{Key: op, Value: v})
	}
	return d
}

func (g filterGen) filter(depth int) bson.D {
	var d bson.D
	for n := g.r.IntN(3); n >= 0; n-- {
		if depth < 2 && g.r.IntN(4) == 0 {
			op := []string{"$and", "$or", "$nor"}[g.r.IntN(3)]
			d = append(d, bson.E{Key: op, Value: bson.A{g.filter(depth + 1), g.filter(depth + 1)}[:1+g.r.IntN(2)]})
			continue
		}
		d = append(d, bson.E{Key: g.field(), Value: g.operand()})
	}
	return d
}

// soundDocs are the documents checked against each filter.
func soundDocs(compound bool) []bson.D {
	docs := []bson.D{{}}
	for _, v := range soundValues {
		docs = append(docs, bson.D{{Key: "a", Value: v}})
		if !compound {
			continue
		}
		for _, w := range soundValues {
			docs = append(docs, bson.D{{Key: "a", Value: v}, {Key: "b", Value: bson.D{{Key: "c", Value: w}}}})
		}
		docs = append(docs, bson.D{{Key: "a", Value: v}, {Key: "b", Value: v}})
	}
	return docs
}

// checkGenerated checks Target's soundness on the filter seed generates.
func checkGenerated(t *testing.T, managers []*ChunkManager, seed uint64) {
	filter := filterGen{rand.New(rand.NewPCG(seed, 11))}.filter(0)
	matcher, err := query.Compile(filter)
	if err != nil {
		return
	}
	for _, m := range managers {
		shards, _ := m.Target(filter)
		pinned, exact := ShardKeyFromFilter(m.Pattern(), filter)
		for _, doc := range soundDocs(m.Pattern().Len() == 2) {
			if !matcher.Match(doc) {
				continue
			}
			if shard, err := m.ShardFor(doc); err == nil && !slices.Contains(shards, shard) {
				t.Fatalf("seed %d: %v matches %v on %s, Target says %v", seed, filter, doc, shard, shards)
			}
			if k, err := m.Pattern().Extract(doc); exact && err == nil && key.Compare(k, pinned) != 0 {
				t.Fatalf("seed %d: %v matches %v with key %v, ShardKeyFromFilter says %v", seed, filter, doc, k, pinned)
			}
		}
	}
}

// TestTargetSound: for random filters, every document that matches lives
// on a shard Target returns.
func TestTargetSound(t *testing.T) {
	managers := fuzzManagers(t)
	for seed := uint64(0); seed < 1000; seed++ {
		checkGenerated(t, managers, seed)
	}
}

// FuzzTargetGenerated explores the same property from fuzzed seeds.
func FuzzTargetGenerated(f *testing.F) {
	f.Add(uint64(1))
	managers := fuzzManagers(f)
	f.Fuzz(func(t *testing.T, seed uint64) { checkGenerated(t, managers, seed) })
}

package agg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestSlidingWindowsMatchRebuild: sliding windows computed by removing
// values give what rebuilding each window gives, over mixed numeric
// types, nulls, strings, decimals, infinities and int64 overflow, for
// document and range windows. The seed is printed; RELAYDB_SEED is not
// needed: each seed is fixed.
func TestSlidingWindowsMatchRebuild(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, seed*7))
		docs := slidingDocs(rng, 200)
		lo, hi := rng.IntN(20)-10, rng.IntN(20)
		if lo > hi {
			lo, hi = hi, lo
		}
		for _, win := range []string{
			fmt.Sprintf(`{"documents": [%d, %d]}`, lo, hi),
			fmt.Sprintf(`{"range": [%d, %d]}`, lo, hi),
			`{"documents": [-3, "current"]}`,
		} {
			pipe := `[{"$setWindowFields": {"partitionBy": "$p", "sortBy": {"t": 1}, "output": {` +
				`"s": {"$sum": "$v", "window": ` + win + `}, "a": {"$avg": "$v", "window": ` + win + `},` +
				`"c": {"$count": {}, "window": ` + win + `}, "mn": {"$min": "$v", "window": ` + win + `},` +
				`"mx": {"$max": "$v", "window": ` + win + `}, "pu": {"$push": "$v", "window": ` + win + `},` +
				`"f": {"$first": "$v", "window": ` + win + `}, "l": {"$last": "$v", "window": ` + win + `},` +
				`"sd": {"$stdDevPop": "$w", "window": ` + win + `}, "ss": {"$stdDevSamp": "$w", "window": ` + win + `}}}}]`
			got := runSliding(t, pipe, docs)
			removableFor = func(string) func() accumulator { return nil }
			want := runSliding(t, pipe, docs)
			removableFor = newRemovable
			for i := range want {
				// Doubles to 9 digits: the removable sum adds the integers
				// exactly, the rebuild in input order.
				if g, w := fmt.Sprint(normalize(got[i])), fmt.Sprint(normalize(want[i])); g != w {
					t.Fatalf("seed %d window %s doc %d:\n got  %s\n want %s", seed, win, i, g, w)
				}
			}
		}
	}
}

func runSliding(t *testing.T, pipe string, docs []bson.D) []bson.D {
	t.Helper()
	out, err := runPipe(t, pipe, docs)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func slidingDocs(rng *rand.Rand, n int) []bson.D {
	docs := make([]bson.D, n)
	for i := range docs {
		var v any
		switch rng.IntN(12) {
		case 0:
			v = nil
		case 1:
			v = "s"
		case 2:
			v = int64(rng.IntN(1000)) << 20
		case 3, 4:
			v = float64(rng.IntN(1000)) / 8
		case 5:
			if rng.IntN(10) == 0 {
				v = math.Inf(1)
			} else {
				v = int64(math.MaxInt64 - rng.IntN(5))
			}
		case 6:
			if rng.IntN(4) == 0 {
				v, _ = bson.ParseDecimal128("1.5")
			}
		default:
			v = int32(rng.IntN(2000) - 1000)
		}
		// w: moderate numbers for the standard deviations, whose removal
		// loses precision with huge ones (as MongoDB's does).
		var w any = float64(rng.IntN(1000)) / 4
		if rng.IntN(8) == 0 {
			w = "x"
		}
		d := bson.D{{Key: "_id", Value: int32(i)}, {Key: "p", Value: int32(rng.IntN(3))}, {Key: "t", Value: int32(i / 2)}, {Key: "w", Value: w}}
		if v != nil || rng.IntN(2) == 0 {
			d = append(d, bson.E{Key: "v", Value: v})
		}
		docs[i] = d
	}
	return docs
}

// BenchmarkSlidingSum: a [-1000, 1000] $sum/$min over 20000 documents in
// one partition, with removal (default) and by rebuilding (-rebuild).
func BenchmarkSlidingSum(b *testing.B) {
	docs := make([]bson.D, 20000)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "v", Value: int32(i % 97)}}
	}
	pipe := `[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"s": {"$sum": "$v", "window": {"documents": [-1000, 1000]}}, "m": {"$min": "$v", "window": {"documents": [-1000, 1000]}}}}}]`
	for _, mode := range []string{"remove", "rebuild"} {
		b.Run(mode, func(b *testing.B) {
			if mode == "rebuild" {
				removableFor = func(string) func() accumulator { return nil }
				defer func() { removableFor = newRemovable }()
			}
			for range b.N {
				p, err := Compile(ej(b, pipe).(bson.A), testEnv(b))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Drain(p.Run(Slice(docs))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

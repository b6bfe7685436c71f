package bsonx_test

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/bsonx/bsonxtest"
)

// TestCompareAscending checks every pair of the ordered edge values: equal
// within a group, ordered across groups, and antisymmetric.
func TestCompareAscending(t *testing.T) {
	groups := bsonxtest.Ascending()
	for i, gi := range groups {
		for j, gj := range groups {
			want := sign(i - j)
			for _, a := range gi {
				for _, b := range gj {
					if got := bsonx.Compare(a, b); got != want {
						t.Errorf("Compare(%s, %s) = %d, want %d", show(a), show(b), got, want)
					}
				}
			}
		}
	}
}

func TestCompareNumericEdges(t *testing.T) {
	dec := bsonxtest.Dec
	tests := []struct {
		a, b any
		want int
	}{
		{int64(1<<62 + 1), float64(1 << 62), 1},
		{float64(1 << 62), int64(1<<62 + 1), -1},
		{int64(1<<53 + 1), float64(1 << 53), 1},
		{int64(math.MaxInt64), float64(1 << 63), -1},
		{int64(math.MinInt64), -float64(1 << 63), 0},
		{int64(math.MinInt64), math.Nextafter(-float64(1<<63), 0), -1},
		{math.NaN(), math.Inf(-1), -1},
		{math.NaN(), math.NaN(), 0},
		{math.NaN(), dec("NaN"), 0},
		{dec("-NaN"), int32(0), -1},
		{math.Copysign(0, -1), int32(0), 0},
		{dec("-0E+3"), 0.0, 0},
		{dec("0.1"), 0.1, -1},
		{dec("0.5"), 0.5, 0},
		{dec("0.1000000000000000055511151231257827"), 0.1, -1},
		{dec("0.1000000000000000055511151231257828"), 0.1, 1},
		{dec("1E+400"), math.MaxFloat64, 1},
		{dec("1E-400"), math.SmallestNonzeroFloat64, -1},
		{dec("-1E-400"), math.Copysign(0, -1), -1},
		{dec("Infinity"), math.Inf(1), 0},
		{dec("9.999999999999999999999999999999999E+6144"), math.Inf(1), -1},
		{int(5), int32(5), 0},
		{float32(0.5), 0.5, 0},
		{int32(2), int64(3), -1},
		{"a", bson.Symbol("a"), 0},
		{bson.Symbol("b"), "a", 1},
		{nil, bson.Undefined{}, 1},
		{bson.A{int32(1)}, []any{1.0}, 0},
	}
	for _, tt := range tests {
		if got := bsonx.Compare(tt.a, tt.b); got != tt.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", show(tt.a), show(tt.b), got, tt.want)
		}
		if got := bsonx.Compare(tt.b, tt.a); got != -tt.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", show(tt.b), show(tt.a), got, -tt.want)
		}
	}
}

// TestCompareProperties checks antisymmetry, reflexivity and transitivity
// over random values, including exact numeric equality across types.
func TestCompareProperties(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	vals := make([]any, 150)
	for i := range vals {
		vals[i] = bsonxtest.Random(r, 2)
	}
	n := len(vals)
	c := make([][]int, n)
	for i := range vals {
		c[i] = make([]int, n)
		for j := range vals {
			c[i][j] = bsonx.Compare(vals[i], vals[j])
		}
		if c[i][i] != 0 {
			t.Fatalf("seed %d: Compare(v, v) = %d for %s", seed, c[i][i], show(vals[i]))
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if c[i][j] != -c[j][i] {
				t.Fatalf("seed %d: not antisymmetric: %s vs %s", seed, show(vals[i]), show(vals[j]))
			}
			for k := 0; k < n; k++ {
				if c[i][j] <= 0 && c[j][k] <= 0 && c[i][k] > 0 {
					t.Fatalf("seed %d: not transitive: %s <= %s <= %s", seed,
						show(vals[i]), show(vals[j]), show(vals[k]))
				}
			}
		}
	}
}

func sign(i int) int {
	switch {
	case i < 0:
		return -1
	case i > 0:
		return 1
	}
	return 0
}

func show(v any) string {
	switch x := v.(type) {
	case bson.Decimal128:
		return "dec(" + x.String() + ")"
	case string:
		return fmt.Sprintf("%q", x)
	}
	return fmt.Sprintf("%T(%v)", v, v)
}

package bsonxtest

import (
	"math"
	"math/rand"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
)

var decimals = []string{
	"0", "-0", "1", "1.0", "-1", "0.1", "0.5", "2.5", "-2.5", "1E+2", "100",
	"9007199254740993", "9223372036854775807", "9223372036854775808",
	"1E-6176", "9.999999999999999999999999999999999E+6144", "NaN",
	"Infinity", "-Infinity", "0.30000000000000004", "1E+400", "1E-400",
	"0.3333333333333333333333333333333333", "4.9E-324", "5E-324",
	"1.000000000000000000000000000000001", "18446744073709551617",
}

// RandomNumber returns a number of a random BSON numeric type, biased to
// values that collide across types or sit at precision edges.
func RandomNumber(r *rand.Rand) any {
	switch r.Intn(6) {
	case 0:
		return int32(r.Intn(7) - 3)
	case 1:
		return randInt64(r)
	case 2:
		return randFloat(r)
	case 3:
		return Dec(decimals[r.Intn(len(decimals))])
	case 4:
		return decimalOf(r)
	}
	return float64(r.Intn(7)-3) / 2
}

func randInt64(r *rand.Rand) int64 {
	bases := []int64{0, 1 << 53, 1 << 62, math.MaxInt64, math.MinInt64}
	return bases[r.Intn(len(bases))] + int64(r.Intn(5)-2)
}

func randFloat(r *rand.Rand) float64 {
	vals := []float64{
		math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1),
		0.1, 1 << 53, 1<<53 + 2, 1 << 62, 1 << 63, -(1 << 63), math.MaxFloat64,
		math.SmallestNonzeroFloat64, 2.2250738585072014e-308, 1e300, -1e-300,
	}
	if r.Intn(3) == 0 {
		return math.Float64frombits(r.Uint64())
	}
	return vals[r.Intn(len(vals))]
}

// decimalOf returns the decimal whose text is a random int64 or double.
func decimalOf(r *rand.Rand) bson.Decimal128 {
	if r.Intn(2) == 0 {
		return Dec(strconv.FormatInt(randInt64(r), 10))
	}
	f := randFloat(r)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Dec("1")
	}
	d, err := bson.ParseDecimal128(strconv.FormatFloat(f, 'g', -1, 64))
	if err != nil {
		return Dec("0")
	}
	return d
}

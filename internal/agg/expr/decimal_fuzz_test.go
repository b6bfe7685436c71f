package expr

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// FuzzDecimalArith evaluates every arithmetic operator on two decimals
// (bit patterns from the fuzzer, so NaN, ±Inf, -0, non-canonical and
// extreme exponents occur) and on a decimal with a double: none may panic,
// $add and $multiply must be commutative, and a decimal operand must give
// a decimal (or an error).
func FuzzDecimalArith(f *testing.F) {
	f.Add(uint64(0x3040000000000000), uint64(1), uint64(0x303e000000000000), uint64(3), 0.1)
	f.Add(uint64(0x7800000000000000), uint64(0), uint64(0x0000000000000000), uint64(1), -0.0)
	f.Add(uint64(0x5ffe314dc6448d93), uint64(0x38c15b09ffffffff), uint64(0xb040000000000000), uint64(7), 1e300)
	ops := []string{"$add", "$subtract", "$multiply", "$divide", "$mod", "$pow", "$log", "$round", "$trunc"}
	unary := []string{"$abs", "$ceil", "$floor", "$sqrt", "$exp", "$ln", "$log10", "$toLong", "$toDouble"}
	f.Fuzz(func(t *testing.T, h1, l1, h2, l2 uint64, x float64) {
		a, b := bson.NewDecimal128(h1, l1), bson.NewDecimal128(h2, l2)
		doc := bson.D{{Key: "a", Value: a}, {Key: "b", Value: b}, {Key: "x", Value: x}, {Key: "p", Value: int32(l2 % 40)}}
		eval := func(op string, args ...any) (any, error) {
			e, err := Compile(bson.D{{Key: op, Value: bson.A(args)}})
			if err != nil {
				t.Fatalf("compile %s: %v", op, err)
			}
			return e.Eval(doc, nil)
		}
		for _, op := range ops {
			for _, args := range [][]any{{"$a", "$b"}, {"$a", "$x"}, {"$x", "$a"}, {"$a", "$p"}} {
				r, err := eval(op, args...)
				if _, isDec := r.(bson.Decimal128); err == nil && !isDec && op != "$round" && op != "$trunc" {
					t.Fatalf("%s %v gave %T %v", op, args, r, r)
				}
			}
		}
		for _, op := range unary {
			_, _ = eval(op, "$a")
		}
		for _, op := range []string{"$add", "$multiply"} {
			r1, err1 := eval(op, "$a", "$b")
			r2, err2 := eval(op, "$b", "$a")
			if (err1 == nil) != (err2 == nil) || (err1 == nil && r1.(bson.Decimal128).String() != r2.(bson.Decimal128).String()) {
				t.Fatalf("%s not commutative: %v %v / %v %v", op, r1, err1, r2, err2)
			}
		}
	})
}

package decimal

import "testing"

// go test ./internal/decimal -bench . -run XXX
func BenchmarkAdd(b *testing.B) {
	x, y := dec(b, "12345.6789"), dec(b, "0.000123")
	for i := 0; i < b.N; i++ {
		x = Add(x, y)
	}
}

func BenchmarkMul(b *testing.B) {
	x, y := dec(b, "1.0000001"), dec(b, "1.0000001")
	for i := 0; i < b.N; i++ {
		_ = Mul(x, y)
	}
}

func BenchmarkQuo(b *testing.B) {
	x, y := dec(b, "1"), dec(b, "3")
	for i := 0; i < b.N; i++ {
		_ = Quo(x, y)
	}
}

func BenchmarkFromFloat64(b *testing.B) {
	for i := 0; i < b.N; i++ {
		_ = FromFloat64(0.1, Double15)
	}
}

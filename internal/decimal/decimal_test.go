package decimal

import (
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func dec(t testing.TB, s string) bson.Decimal128 {
	t.Helper()
	d, err := bson.ParseDecimal128(s)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return d
}

func TestRoundTrip(t *testing.T) {
	for _, s := range []string{
		"0", "-0", "0E-6176", "0E+6111", "-0.00", "1", "-1", "0.1", "1.90000000000000",
		"9999999999999999999999999999999999", "-9.999999999999999999999999999999999E+6144",
		"1E+6144", "1E-6176", "1.000000000000000000000000000000000E-6143", "NaN", "Infinity", "-Infinity",
		"123456789.0123456789", "1E+6111",
	} {
		d := dec(t, s)
		got := FromAPD(ToAPD(d))
		h1, l1 := d.GetBytes()
		h2, l2 := got.GetBytes()
		if h1 != h2 || l1 != l2 {
			t.Errorf("%s: round trip gave %s", s, got)
		}
	}
}

func TestArithmetic(t *testing.T) {
	cases := []struct {
		name string
		got  bson.Decimal128
		want string
	}{
		{"0.1+0.2", Add(dec(t, "0.1"), dec(t, "0.2")), "0.3"},
		{"1/3", Quo(dec(t, "1"), dec(t, "3")), "0.3333333333333333333333333333333333"},
		{"2/3", Quo(dec(t, "2"), dec(t, "3")), "0.6666666666666666666666666666666667"},
		{"1/4", Quo(dec(t, "1"), dec(t, "4")), "0.25"},
		{"1/0", Quo(dec(t, "1"), dec(t, "0")), "Infinity"},
		{"-1/0", Quo(dec(t, "-1"), dec(t, "0")), "-Infinity"},
		{"0/0", Quo(dec(t, "0"), dec(t, "0")), "NaN"},
		{"overflow", Mul(dec(t, "9E+6144"), dec(t, "10")), "Infinity"},
		{"-overflow", Mul(dec(t, "-9E+6144"), dec(t, "10")), "-Infinity"},
		{"underflow", Mul(dec(t, "1E-6176"), dec(t, "0.1")), "0E-6176"},
		{"34 digits half-even", Add(dec(t, "1000000000000000000000000000000000"), dec(t, "0.5")), "1000000000000000000000000000000000"},
		{"34 digits half-even up", Add(dec(t, "1000000000000000000000000000000001"), dec(t, "0.5")), "1000000000000000000000000000000002"},
		{"1.10*3", Mul(dec(t, "1.10"), dec(t, "3")), "3.30"},
		{"5.5-0.5", Sub(dec(t, "5.5"), dec(t, "0.5")), "5.0"},
		{"mod", Rem(dec(t, "-7.5"), dec(t, "2")), "-1.5"},
		{"sqrt", Sqrt(dec(t, "2")), "1.414213562373095048801688724209698"},
		{"sqrt4", Sqrt(dec(t, "4")), "2"},
		{"sqrt-1", Sqrt(dec(t, "-1")), "NaN"},
		{"ln1", Ln(dec(t, "1")), "0"},
		{"log10 1000", Log10(dec(t, "1000")), "3"},
		{"exp0", Exp(dec(t, "0")), "1"},
		{"pow", Pow(dec(t, "1.1"), dec(t, "2")), "1.21"},
		{"pow overflow", Pow(dec(t, "2"), dec(t, "0.5E+100")), "Infinity"},
		{"pow underflow", Pow(dec(t, "1.5"), dec(t, "-1234567.891")), "0E-6176"},
		{"pow -2 odd overflow", Pow(dec(t, "-2"), dec(t, "1E+40")), "Infinity"},
		{"pow -2 odd huge", Pow(dec(t, "-2"), dec(t, "1234567891")), "-Infinity"},
		{"pow -2 odd underflow", Pow(dec(t, "-2"), dec(t, "-1234567891")), "-0E-6176"},
		{"pow -2 odd", Pow(dec(t, "-2"), dec(t, "3")), "-8"},
		{"pow neg frac", Pow(dec(t, "-8"), dec(t, "0.5")), "NaN"},
		{"pow 10^7000", Pow(dec(t, "10"), dec(t, "7000")), "Infinity"},
		{"ceil", Ceil(dec(t, "-1.5")), "-1"},
		{"floor", Floor(dec(t, "-1.5")), "-2"},
		{"ceil NaN", Ceil(dec(t, "NaN")), "NaN"},
		{"floor -Inf", Floor(dec(t, "-Infinity")), "-Infinity"},
		{"ceil 1E+3", Ceil(dec(t, "1E+3")), "1E+3"},
		{"round half even", Quantize(dec(t, "2.5"), 0, HalfEven), "2"},
		{"round 1.255", Quantize(dec(t, "1.255"), -2, HalfEven), "1.26"},
		{"trunc", Quantize(dec(t, "-1.259"), -2, Down), "-1.25"},
		{"quantize pads", Quantize(dec(t, "1.5"), -3, HalfEven), "1.500"},
		{"quantize too many digits", Quantize(dec(t, "1E+33"), -2, HalfEven), "NaN"},
		{"quantize up", Quantize(dec(t, "1250"), 2, HalfEven), "1.2E+3"},
		{"int", FromInt64(math.MinInt64), "-9223372036854775808"},
		{"double 15", FromFloat64(1.9, Double15), "1.90000000000000"},
		{"double 0.1", FromFloat64(0.1, Double15), "0.100000000000000"},
		{"double 34", FromFloat64(0.1, Double34), "0.1000000000000000055511151231257827"},
		{"double -0", FromFloat64(math.Copysign(0, -1), Double15), "-0"},
		{"double inf", FromFloat64(math.Inf(-1), Double15), "-Infinity"},
		{"double 18 digits", FromFloat64(123456789012345678, Double15), "1.23456789012346E+17"},
		{"double max", FromFloat64(math.MaxFloat64, Double15), "1.79769313486232E+308"},
	}
	for _, c := range cases {
		if got := c.got.String(); got != c.want {
			t.Errorf("%s = %s, want %s", c.name, got, c.want)
		}
	}
}

func TestParseAndFloat(t *testing.T) {
	d, ok := Parse("1.234567890123456789012345678901234567")
	if !ok || d.String() != "1.234567890123456789012345678901235" {
		t.Errorf("Parse rounding: %v %v", d, ok)
	}
	for _, bad := range []string{"abc", "", " 1", "0x10", "1E+7000", "-1E-7000", "1.5E-6176", "sNaN"} {
		if d, ok := Parse(bad); ok {
			t.Errorf("Parse(%q) = %s, ok", bad, d)
		}
	}
	for _, good := range []string{"1E+6144", "-1E-6176", "Infinity", "-inf", "NaN", "+.5"} {
		if _, ok := Parse(good); !ok {
			t.Errorf("Parse(%q) failed", good)
		}
	}
	if f := ToFloat64(dec(t, "0.1")); f != 0.1 {
		t.Errorf("ToFloat64(0.1) = %v", f)
	}
	if f := ToFloat64(dec(t, "1E+400")); !math.IsInf(f, 1) {
		t.Errorf("ToFloat64(1E+400) = %v", f)
	}
}

func TestTruncInt64(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"9223372036854775807.9", math.MaxInt64, true},
		{"-9223372036854775808.5", math.MinInt64, true},
		{"9223372036854775808", 0, false},
		{"-2.7", -2, true},
		{"1E+3", 1000, true},
		{"1E+40", 0, false},
		{"NaN", 0, false},
		{"-Infinity", 0, false},
	} {
		got, ok := TruncInt64(dec(t, c.in))
		if got != c.want || ok != c.ok {
			t.Errorf("TruncInt64(%s) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add(uint64(0x3040000000000000), uint64(1))
	f.Add(uint64(0x7c00000000000000), uint64(0))
	f.Add(uint64(0xb040000000000000), uint64(0))
	f.Add(uint64(0x6c10000000000000), uint64(0)) // "11" combination
	f.Fuzz(func(t *testing.T, h, l uint64) {
		d := bson.NewDecimal128(h, l)
		got := FromAPD(ToAPD(d))
		if d.IsNaN() {
			if !got.IsNaN() {
				t.Fatalf("NaN became %s", got)
			}
			return
		}
		if d.IsInf() != 0 {
			if got.IsInf() != d.IsInf() {
				t.Fatalf("%s became %s", d, got)
			}
			return
		}
		if again := FromAPD(ToAPD(got)); again != got {
			t.Fatalf("%s: not stable: %s", got, again)
		}
		c, _, err := d.BigInt()
		canonical := h>>61&3 != 3 && (err != nil || c.CmpAbs(maxCoef) <= 0)
		if canonical && d.String() != got.String() {
			t.Fatalf("%x %x: %s became %s", h, l, d, got)
		}
		if !canonical && (Sign(got) != 0 || got.IsNaN() || got.IsInf() != 0) {
			t.Fatalf("%x %x: non-canonical %s became %s, want a zero", h, l, d, got)
		}
	})
}

package generator

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"testing"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// TestFNVHash64MatchesFNV1a computes YCSB's hash independently: FNV-1a over
// the little-endian bytes of the two's complement value, then abs.
func TestFNVHash64MatchesFNV1a(t *testing.T) {
	for _, v := range []int64{0, 1, 2, 255, 256, 999, 1 << 40, math.MaxInt64, -1, -12345} {
		h := fnv.New64a()
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(v))
		h.Write(b[:])
		want := int64(h.Sum64())
		if want < 0 {
			want = -want
		}
		if got := FNVHash64(v); got != want {
			t.Errorf("FNVHash64(%d) = %d, want %d", v, got, want)
		}
	}
}

func TestFNVHash64KnownValue(t *testing.T) {
	// The first key YCSB loads with insertorder=hashed is user6284781860667377211.
	if got := FNVHash64(0); got != 6284781860667377211 {
		t.Fatalf("FNVHash64(0) = %d", got)
	}
}

func counts(n int, next func() int64) map[int64]int {
	m := map[int64]int{}
	for i := 0; i < n; i++ {
		m[next()]++
	}
	return m
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.4f, want %.4f ± %.4f", what, got, want, tol)
	}
}

func TestZipfianShape(t *testing.T) {
	const items, draws = 1000, 200_000
	z := NewZipfian(0, items-1, ZipfianConstant)
	r := newRand(1)
	c := counts(draws, func() int64 { return z.Next(r) })
	zeta := Zeta(0, items, ZipfianConstant, 0)
	for k := int64(0); k < 3; k++ {
		want := 1 / math.Pow(float64(k+1), ZipfianConstant) / zeta
		near(t, "P(item "+string(rune('0'+k))+")", float64(c[k])/draws, want, 0.01)
	}
	for k := range c {
		if k < 0 || k >= items {
			t.Fatalf("draw %d out of [0,%d)", k, items)
		}
	}
	if c[0] <= c[1] || c[1] <= c[5] || c[5] <= c[500] {
		t.Errorf("not decreasing: c0=%d c1=%d c5=%d c500=%d", c[0], c[1], c[5], c[500])
	}
}

func TestZipfianBaseAndGrowth(t *testing.T) {
	z := NewZipfian(10, 19, ZipfianConstant)
	r := newRand(2)
	for i := 0; i < 1000; i++ {
		if v := z.Next(r); v < 10 || v > 19 {
			t.Fatalf("draw %d outside [10,19]", v)
		}
	}
	z.NextN(r, 50)
	st := z.state.Load()
	if st.count != 50 || math.Abs(st.zetan-Zeta(0, 50, ZipfianConstant, 0)) > 1e-9 {
		t.Fatalf("after growth count=%d zetan=%v", st.count, st.zetan)
	}
	z.NextN(r, 20) // smaller: no recomputation
	if z.state.Load().count != 50 {
		t.Fatal("zeta recomputed for a smaller item count")
	}
}

func TestScrambledZipfian(t *testing.T) {
	const min, max, draws = 100, 1099, 200_000
	s := NewScrambledZipfian(min, max)
	r := newRand(3)
	c := counts(draws, func() int64 { return s.Next(r) })
	top, topN := int64(-1), 0
	for k, n := range c {
		if k < min || k > max {
			t.Fatalf("draw %d out of range", k)
		}
		if n > topN {
			top, topN = k, n
		}
	}
	if want := min + FNVHash64(0)%(max-min+1); top != want {
		t.Errorf("most popular = %d, want hash of item 0 = %d", top, want)
	}
	// Item 0 of the 10^16-item zipfian has probability 1/zetan.
	near(t, "P(top)", float64(topN)/draws, 1/scrambledZetan, 0.01)
}

func TestSkewedLatest(t *testing.T) {
	basis := NewAckCounter(1000)
	g := NewSkewedLatest(basis)
	r := newRand(4)
	c := counts(50_000, func() int64 { return g.Next(r) })
	last := basis.Last()
	for k := range c {
		if k < 0 || k > last {
			t.Fatalf("draw %d outside [0,%d]", k, last)
		}
	}
	if c[last] < c[last-1] || c[last-1] < c[last-50] {
		t.Errorf("latest not favoured: %d %d %d", c[last], c[last-1], c[last-50])
	}
	for i := 0; i < 100; i++ {
		v := basis.Next(nil)
		basis.Acknowledge(v)
	}
	if basis.Last() != 1099 {
		t.Fatalf("Last = %d after 100 acks", basis.Last())
	}
	if v := g.Next(r); v > 1099 {
		t.Fatalf("draw %d beyond new last", v)
	}
}

func TestAckCounterOutOfOrder(t *testing.T) {
	c := NewAckCounter(0)
	a, b, d := c.Next(nil), c.Next(nil), c.Next(nil)
	steps := []struct {
		ack, last int64
	}{{d, -1}, {a, 0}, {b, 2}}
	for _, s := range steps {
		if !c.Acknowledge(s.ack) {
			t.Fatalf("ack %d refused", s.ack)
		}
		if c.Last() != s.last {
			t.Fatalf("after ack %d Last = %d, want %d", s.ack, c.Last(), s.last)
		}
	}
}

func TestHotspot(t *testing.T) {
	h := NewHotspot(0, 999, 0.2, 0.8)
	r := newRand(5)
	hot := 0
	const draws = 100_000
	for i := 0; i < draws; i++ {
		v := h.Next(r)
		if v < 0 || v > 999 {
			t.Fatalf("draw %d out of range", v)
		}
		if v < 200 {
			hot++
		}
	}
	near(t, "hot fraction", float64(hot)/draws, 0.8, 0.01)
}

func TestUniformAndCounter(t *testing.T) {
	u := NewUniform(5, 14)
	r := newRand(6)
	c := counts(100_000, func() int64 { return u.Next(r) })
	if len(c) != 10 {
		t.Fatalf("uniform hit %d values, want 10", len(c))
	}
	for k, n := range c {
		near(t, "P(uniform)", float64(n)/100_000, 0.1, 0.01)
		if k < 5 || k > 14 {
			t.Fatalf("draw %d out of range", k)
		}
	}
	cnt := NewCounter(7)
	if cnt.Next(nil) != 7 || cnt.Next(nil) != 8 || cnt.Last() != 8 {
		t.Fatal("counter sequence wrong")
	}
}

func TestDiscrete(t *testing.T) {
	d := NewDiscrete()
	d.Add(0.5, "READ")
	d.Add(0, "SCAN")
	d.Add(0.25, "UPDATE")
	d.Add(0.25, "INSERT")
	if d.Len() != 3 {
		t.Fatalf("Len = %d", d.Len())
	}
	r := newRand(7)
	m := map[string]int{}
	for i := 0; i < 100_000; i++ {
		m[d.Next(r)]++
	}
	near(t, "READ", float64(m["READ"])/100_000, 0.5, 0.01)
	near(t, "UPDATE", float64(m["UPDATE"])/100_000, 0.25, 0.01)
	if m["SCAN"] != 0 {
		t.Fatal("zero-weight value chosen")
	}
}

func TestAckCounterConcurrent(t *testing.T) {
	c := NewAckCounter(100)
	z := NewZipfian(0, 99, ZipfianConstant)
	done := make(chan struct{})
	for g := 0; g < 8; g++ {
		go func(seed uint64) {
			defer func() { done <- struct{}{} }()
			r := newRand(seed)
			for i := 0; i < 1000; i++ {
				v := c.Next(nil)
				if n := z.NextN(r, c.Last()+1); n < 0 || n > c.Last()+1 {
					t.Errorf("zipfian draw %d beyond %d", n, c.Last()+1)
				}
				c.Acknowledge(v)
			}
		}(uint64(g))
	}
	for g := 0; g < 8; g++ {
		<-done
	}
	if c.Last() != 100+8000-1 {
		t.Fatalf("Last = %d, want %d", c.Last(), 100+8000-1)
	}
}

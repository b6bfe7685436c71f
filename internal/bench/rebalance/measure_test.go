package rebalance

import (
	"testing"
	"time"
)

func ms(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }

func TestSummarize(t *testing.T) {
	sec := time.Second
	ops := []Op{
		{At: 0, Latency: ms(1), Kind: KindRead, OK: true},
		{At: 500 * time.Millisecond, Latency: ms(3), Kind: KindUpdate, OK: true},
		{At: 999 * time.Millisecond, Latency: ms(50), Kind: KindRead, OK: false},   // failed: counted, not in latency
		{At: sec, Latency: ms(10), Kind: KindRead, OK: true},                       // starts the second phase
		{At: 1500 * time.Millisecond, Latency: ms(20), Kind: KindRead, OK: true},   //
		{At: 2500 * time.Millisecond, Latency: ms(99), Kind: KindUpdate, OK: true}, // between phases: in none
		{At: 3 * sec, Latency: ms(2), Kind: KindOther, OK: true},                   // only in All
	}
	phases := []Phase{NewPhase("a", 0, sec), NewPhase("b", sec, 2*sec), NewPhase("c", 3*sec, 4*sec)}
	got := Summarize(ops, phases)
	cases := []struct {
		i                   int
		reads, rf, ups, all int
		readP99, allMax     float64
		opsSec              float64
	}{
		{0, 1, 1, 1, 2, 1, 3, 2},
		{1, 2, 0, 0, 2, 20, 20, 2},
		{2, 0, 0, 0, 1, 0, 2, 1},
	}
	for _, c := range cases {
		g := got[c.i]
		if g.Read.Ops != c.reads || g.Read.Failed != c.rf || g.Update.Ops != c.ups || g.All.Ops != c.all ||
			g.Read.P99 != c.readP99 || g.All.Max != c.allMax || g.Throughput != c.opsSec || g.Failed != c.rf {
			t.Errorf("phase %d: %+v, want %+v", c.i, g, c)
		}
	}
}

func TestRank(t *testing.T) {
	s := make([]float64, 100)
	for i := range s {
		s[i] = float64(i + 1)
	}
	for _, c := range []struct{ p, want float64 }{{50, 50}, {95, 95}, {99, 99}, {100, 100}, {0, 1}} {
		if got := rank(s, c.p); got != c.want {
			t.Errorf("rank(1..100, %v) = %v, want %v", c.p, got, c.want)
		}
	}
	if got := rank([]float64{7}, 99); got != 7 {
		t.Errorf("rank of one = %v", got)
	}
	if l := latency(nil, 3); l.P99 != 0 || l.Failed != 3 {
		t.Errorf("latency of none = %+v", l)
	}
}

func TestTimeline(t *testing.T) {
	ops := []Op{
		{At: 100 * time.Millisecond, Latency: ms(4), Kind: KindRead, OK: true},
		{At: 1100 * time.Millisecond, Latency: ms(8), Kind: KindUpdate, OK: true},
		{At: 1200 * time.Millisecond, Latency: ms(80), Kind: KindUpdate, OK: false}, // failed: not drawn
		{At: 5 * time.Second, Latency: ms(1), Kind: KindRead, OK: true},             // beyond end
	}
	rd, up := Timeline(ops, 2*time.Second, time.Second)
	if len(rd) != 2 || rd[0] != 4 || rd[1] != 0 || up[0] != 0 || up[1] != 8 {
		t.Errorf("Timeline = %v %v", rd, up)
	}
	if rd, _ := Timeline(ops, 0, time.Second); rd != nil {
		t.Errorf("empty timeline = %v", rd)
	}
}

func TestRatio(t *testing.T) {
	for _, c := range []struct{ a, b, want float64 }{{4, 2, 2}, {1, 0, 0}, {0, 3, 0}} {
		if got := Ratio(c.a, c.b); got != c.want {
			t.Errorf("Ratio(%v, %v) = %v", c.a, c.b, got)
		}
	}
}

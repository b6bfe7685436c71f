package failover

import (
	"sort"
	"time"
)

// Window is what the operation log shows around one kill.
type Window struct {
	MaxGap     time.Duration // longest gap between consecutive acks in the window
	GapFrom    time.Time     // the ack that opened MaxGap
	FailToOK   time.Duration // first failed or stalled op after the window start to the next ack; 0 if none
	Failed     int           // failures in the window
	Stalled    int           // ops slower than the stall threshold whose stall began in the window
	Recovered  bool          // an ack came after kill
	FirstAfter time.Time     // first ack after kill
}

// window computes the Window of acks/fails/stalls (each in increasing
// order) for a kill at kill, looking at events in [from, to].
func window(acks, fails, stalls []time.Time, kill, from, to time.Time) Window {
	var w Window
	in := func(t time.Time) bool { return !t.Before(from) && !t.After(to) }
	var prev time.Time
	for _, a := range acks {
		if !in(a) {
			continue
		}
		if !prev.IsZero() && a.After(kill) && a.Sub(prev) > w.MaxGap {
			w.MaxGap, w.GapFrom = a.Sub(prev), prev
		}
		if a.After(kill) && !w.Recovered {
			w.Recovered, w.FirstAfter = true, a
		}
		prev = a
	}
	bad := firstIn(fails, from, to)
	if s := firstIn(stalls, from, to); !s.IsZero() && (bad.IsZero() || s.Before(bad)) {
		bad = s
	}
	if !bad.IsZero() {
		if ok := firstIn(acks, bad, to); !ok.IsZero() {
			w.FailToOK = ok.Sub(bad)
		}
	}
	w.Failed, w.Stalled = countIn(fails, from, to), countIn(stalls, from, to)
	return w
}

func firstIn(ts []time.Time, from, to time.Time) time.Time {
	i := sort.Search(len(ts), func(i int) bool { return !ts[i].Before(from) })
	if i < len(ts) && !ts[i].After(to) {
		return ts[i]
	}
	return time.Time{}
}

func countIn(ts []time.Time, from, to time.Time) int {
	n := 0
	for _, t := range ts {
		if !t.Before(from) && !t.After(to) {
			n++
		}
	}
	return n
}

// Stat is the median, min and max of a set of durations, in milliseconds.
type Stat struct {
	N        int     `json:"n"`
	MedianMs float64 `json:"medianMs"`
	MinMs    float64 `json:"minMs"`
	MaxMs    float64 `json:"maxMs"`
}

// summarize returns the Stat of ds (the zero Stat when empty). The median
// of an even count is the mean of the middle two.
func summarize(ds []time.Duration) Stat {
	if len(ds) == 0 {
		return Stat{}
	}
	ms := make([]float64, len(ds))
	for i, d := range ds {
		ms[i] = float64(d.Microseconds()) / 1000
	}
	sort.Float64s(ms)
	n := len(ms)
	med := ms[n/2]
	if n%2 == 0 {
		med = (ms[n/2-1] + ms[n/2]) / 2
	}
	return Stat{N: n, MedianMs: med, MinMs: ms[0], MaxMs: ms[n-1]}
}

// percentile returns the p-th percentile (0..100, nearest rank) of ms.
func percentile(ms []float64, p float64) float64 {
	if len(ms) == 0 {
		return 0
	}
	s := append([]float64(nil), ms...)
	sort.Float64s(s)
	rank := int(p/100*float64(len(s))+0.999999) - 1
	return s[min(max(rank, 0), len(s)-1)]
}

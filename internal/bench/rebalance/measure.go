package rebalance

import (
	"math"
	"sort"
	"time"
)

// Kinds of a recorded operation.
const (
	KindRead uint8 = iota
	KindUpdate
	KindOther // inserts and scans (not in workloads A and B)
)

// Op is one foreground operation: its start since the run's start, its
// latency, kind and outcome.
type Op struct {
	At      time.Duration
	Latency time.Duration
	Kind    uint8
	OK      bool
}

// Phase is a named window [Start, End) since the run's start.
type Phase struct {
	Name       string        `json:"name"`
	Start, End time.Duration `json:"-"`
	StartSecs  float64       `json:"startSecs"`
	EndSecs    float64       `json:"endSecs"`
}

// NewPhase makes a phase with its seconds filled for the report.
func NewPhase(name string, start, end time.Duration) Phase {
	return Phase{Name: name, Start: start, End: end, StartSecs: start.Seconds(), EndSecs: end.Seconds()}
}

// Latency summarizes the successful operations of one kind, in ms.
type Latency struct {
	Ops    int     `json:"ops"`
	Failed int     `json:"failed"`
	P50    float64 `json:"p50Ms"`
	P95    float64 `json:"p95Ms"`
	P99    float64 `json:"p99Ms"`
	Max    float64 `json:"maxMs"`
}

// PhaseStats is what the clients saw in one phase.
type PhaseStats struct {
	Phase      Phase   `json:"phase"`
	Secs       float64 `json:"secs"`
	Throughput float64 `json:"opsPerSec"` // successful operations per second
	Read       Latency `json:"read"`
	Update     Latency `json:"update"`
	All        Latency `json:"all"` // reads, updates and others
	Failed     int     `json:"failed"`
}

// Summarize computes each phase's statistics from ops (any order). An op
// belongs to the phase its start falls in. Pure.
func Summarize(ops []Op, phases []Phase) []PhaseStats {
	out := make([]PhaseStats, len(phases))
	for i, p := range phases {
		var rd, up, all []float64
		var rf, uf, af int
		for _, o := range ops {
			if o.At < p.Start || o.At >= p.End {
				continue
			}
			ms := float64(o.Latency) / float64(time.Millisecond)
			if !o.OK {
				af++
				switch o.Kind {
				case KindRead:
					rf++
				case KindUpdate:
					uf++
				}
				continue
			}
			all = append(all, ms)
			switch o.Kind {
			case KindRead:
				rd = append(rd, ms)
			case KindUpdate:
				up = append(up, ms)
			}
		}
		secs := (p.End - p.Start).Seconds()
		st := PhaseStats{Phase: p, Secs: secs, Read: latency(rd, rf), Update: latency(up, uf), All: latency(all, af), Failed: af}
		if secs > 0 {
			st.Throughput = float64(len(all)) / secs
		}
		out[i] = st
	}
	return out
}

// latency sorts ms and takes its percentiles (nearest rank).
func latency(ms []float64, failed int) Latency {
	sort.Float64s(ms)
	l := Latency{Ops: len(ms), Failed: failed}
	if len(ms) == 0 {
		return l
	}
	l.P50, l.P95, l.P99, l.Max = rank(ms, 50), rank(ms, 95), rank(ms, 99), ms[len(ms)-1]
	return l
}

// rank is the nearest-rank percentile p of sorted s.
func rank(s []float64, p float64) float64 {
	r := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[min(max(r, 0), len(s)-1)]
}

// Ratio is a/b, 0 when b is 0.
func Ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// Timeline is the p99 latency of successful reads and updates per bucket
// of width w from 0 to end (for the chart). Pure.
func Timeline(ops []Op, end, w time.Duration) (read, update []float64) {
	n := int(end / w)
	if n <= 0 || n > 100000 {
		return nil, nil
	}
	rb, ub := make([][]float64, n), make([][]float64, n)
	for _, o := range ops {
		i := int(o.At / w)
		if !o.OK || i < 0 || i >= n {
			continue
		}
		ms := float64(o.Latency) / float64(time.Millisecond)
		if o.Kind == KindRead {
			rb[i] = append(rb[i], ms)
		} else if o.Kind == KindUpdate {
			ub[i] = append(ub[i], ms)
		}
	}
	read, update = make([]float64, n), make([]float64, n)
	for i := range n {
		read[i], update[i] = latency(rb[i], 0).P99, latency(ub[i], 0).P99
	}
	return read, update
}

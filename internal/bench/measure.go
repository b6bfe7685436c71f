package bench

import (
	"sort"
	"sync"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram bounds: 1 µs to one hour with 3 significant digits, YCSB's
// hdrhistogram.precision default. Slower operations are recorded as an hour.
const (
	histMinMicros = 1
	histMaxMicros = 3_600_000_000
	histDigits    = 3
)

// Measurements holds, per operation name, an HDR histogram of latencies in
// microseconds for the whole phase, another for the current status
// interval, and the count of each returned status. One instance is shared
// by all workers; its critical sections are a few counter updates.
type Measurements struct {
	mu  sync.Mutex
	ops map[string]*opStats // REQUIRES: mu
}

type opStats struct {
	total, interval *hdrhistogram.Histogram
	returns         map[Status]int64
}

// NewMeasurements returns empty measurements.
func NewMeasurements() *Measurements { return &Measurements{ops: map[string]*opStats{}} }

func newHist() *hdrhistogram.Histogram {
	return hdrhistogram.New(histMinMicros, histMaxMicros, histDigits)
}

// statsLocked returns op's stats, creating them. REQUIRES: m.mu.
func (m *Measurements) statsLocked(op string) *opStats {
	s := m.ops[op]
	if s == nil {
		s = &opStats{total: newHist(), interval: newHist(), returns: map[Status]int64{}}
		m.ops[op] = s
	}
	return s
}

// Measure records one latency of op.
func (m *Measurements) Measure(op string, micros int64) {
	micros = min(max(micros, histMinMicros), histMaxMicros)
	m.mu.Lock()
	s := m.statsLocked(op)
	_ = s.total.RecordValue(micros) // in range by the clamp above
	_ = s.interval.RecordValue(micros)
	m.mu.Unlock()
}

// Report counts one returned status of op.
func (m *Measurements) Report(op string, st Status) {
	m.mu.Lock()
	m.statsLocked(op).returns[st]++
	m.mu.Unlock()
}

// OpSummary is one operation's figures, as YCSB prints them.
type OpSummary struct {
	Name        string           `json:"name"`
	Operations  int64            `json:"operations"`
	AvgMicros   float64          `json:"avgLatencyUs"`
	MinMicros   int64            `json:"minLatencyUs"`
	MaxMicros   int64            `json:"maxLatencyUs"`
	P50Micros   int64            `json:"p50LatencyUs"`
	P90Micros   int64            `json:"p90LatencyUs"`
	P95Micros   int64            `json:"p95LatencyUs"`
	P99Micros   int64            `json:"p99LatencyUs"`
	P999Micros  int64            `json:"p999LatencyUs"`
	P9999Micros int64            `json:"p9999LatencyUs"`
	Returns     map[Status]int64 `json:"returns,omitempty"`
}

func summarize(name string, h *hdrhistogram.Histogram, returns map[Status]int64) OpSummary {
	s := OpSummary{Name: name, Operations: h.TotalCount(), Returns: map[Status]int64{}}
	for k, v := range returns {
		s.Returns[k] = v
	}
	if s.Operations > 0 {
		s.AvgMicros = h.Mean()
		s.MinMicros, s.MaxMicros = h.Min(), h.Max()
		s.P50Micros = h.ValueAtQuantile(50)
		s.P90Micros = h.ValueAtQuantile(90)
		s.P95Micros = h.ValueAtQuantile(95)
		s.P99Micros = h.ValueAtQuantile(99)
		s.P999Micros = h.ValueAtQuantile(99.9)
		s.P9999Micros = h.ValueAtQuantile(99.99)
	}
	return s
}

// Summaries returns every operation's totals in YCSB's usual order.
func (m *Measurements) Summaries() []OpSummary {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]OpSummary, 0, len(m.ops))
	for name, s := range m.ops {
		out = append(out, summarize(name, s.total, s.returns))
	}
	sortOps(out)
	return out
}

// TakeInterval returns each operation's figures since the last call and
// starts a new interval.
func (m *Measurements) TakeInterval() []OpSummary {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]OpSummary, 0, len(m.ops))
	for name, s := range m.ops {
		out = append(out, summarize(name, s.interval, nil))
		s.interval.Reset()
	}
	sortOps(out)
	return out
}

// opOrder ranks the core operations; others (the -FAILED variants) follow
// in name order.
var opOrder = map[string]int{OpRead: 1, OpUpdate: 2, OpInsert: 3, OpScan: 4, OpReadModifyWrite: 5}

func sortOps(s []OpSummary) {
	rank := func(n string) int {
		if r, ok := opOrder[n]; ok {
			return r
		}
		return 100
	}
	sort.Slice(s, func(i, j int) bool {
		ri, rj := rank(s[i].Name), rank(s[j].Name)
		if ri != rj {
			return ri < rj
		}
		return s[i].Name < s[j].Name
	})
}

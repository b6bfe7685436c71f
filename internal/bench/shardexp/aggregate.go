package shardexp

import (
	"slices"
	"strings"

	"github.com/relaydb/relaydb/internal/bench"
)

// Measure is one run of a cell over all its clients, aggregated as the
// reference did: throughput summed over the clients; latencies here
// weighted by each client's operation count (the reference averaged the
// clients' averages, the same when clients are alike); p99 the worst
// client's.
type Measure struct {
	Clients     int     `json:"clients"`
	Operations  int64   `json:"operations"`
	Throughput  float64 `json:"throughputOpsPerSec"`
	Reads       int64   `json:"reads"`
	ReadAvgUs   float64 `json:"readAvgUs"`
	ReadP99Us   int64   `json:"readP99Us"`
	Updates     int64   `json:"updates"`
	UpdateAvgUs float64 `json:"updateAvgUs"`
	UpdateP99Us int64   `json:"updateP99Us"`
	Failed      int64   `json:"failed"` // operations YCSB counts as -FAILED (errors and NOT_FOUND)
}

// Aggregate folds the clients' results of one run; nil results (a
// client that did not start) count as missing clients.
func Aggregate(results []*bench.Result) Measure {
	var m Measure
	var readSum, updSum float64
	for _, r := range results {
		if r == nil {
			continue
		}
		m.Clients++
		m.Operations += r.Operations
		m.Throughput += r.Throughput
		for _, o := range r.Ops {
			switch {
			case strings.HasSuffix(o.Name, "-FAILED"):
				m.Failed += o.Operations
			case o.Name == bench.OpRead:
				m.Reads += o.Operations
				readSum += o.AvgMicros * float64(o.Operations)
				m.ReadP99Us = max(m.ReadP99Us, o.P99Micros)
			case o.Name == bench.OpUpdate:
				m.Updates += o.Operations
				updSum += o.AvgMicros * float64(o.Operations)
				m.UpdateP99Us = max(m.UpdateP99Us, o.P99Micros)
			}
		}
	}
	if m.Reads > 0 {
		m.ReadAvgUs = readSum / float64(m.Reads)
	}
	if m.Updates > 0 {
		m.UpdateAvgUs = updSum / float64(m.Updates)
	}
	return m
}

// Cell is one key's runs and their median.
type Cell struct {
	Key
	Records int64     `json:"records"`
	Threads int       `json:"threads"`
	Runs    []Measure `json:"runs"`
	Median  Measure   `json:"median"` // field by field
	Error   string    `json:"error,omitempty"`
	// ErrorSample is the first failed operations' messages.
	ErrorSample []string `json:"errorSample,omitempty"`
}

// Summarize sets Median from Runs, field by field (the lower middle for
// an even count); failures are summed, not medianed, so none is hidden.
func (c *Cell) Summarize() {
	if len(c.Runs) == 0 {
		c.Median = Measure{}
		return
	}
	f := func(get func(Measure) float64) float64 {
		v := make([]float64, len(c.Runs))
		for i, r := range c.Runs {
			v[i] = get(r)
		}
		slices.Sort(v)
		return v[(len(v)-1)/2]
	}
	i := func(get func(Measure) int64) int64 {
		return int64(f(func(m Measure) float64 { return float64(get(m)) }))
	}
	c.Median = Measure{
		Clients:     int(i(func(m Measure) int64 { return int64(m.Clients) })),
		Operations:  i(func(m Measure) int64 { return m.Operations }),
		Throughput:  f(func(m Measure) float64 { return m.Throughput }),
		Reads:       i(func(m Measure) int64 { return m.Reads }),
		ReadAvgUs:   f(func(m Measure) float64 { return m.ReadAvgUs }),
		ReadP99Us:   i(func(m Measure) int64 { return m.ReadP99Us }),
		Updates:     i(func(m Measure) int64 { return m.Updates }),
		UpdateAvgUs: f(func(m Measure) float64 { return m.UpdateAvgUs }),
		UpdateP99Us: i(func(m Measure) int64 { return m.UpdateP99Us }),
	}
	for _, r := range c.Runs {
		c.Median.Failed += r.Failed
	}
}

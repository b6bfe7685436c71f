package shardexp

import (
	"math"
	"testing"

	"github.com/relaydb/relaydb/internal/bench"
)

func result(tput float64, ops ...bench.OpSummary) *bench.Result {
	var n int64
	for _, o := range ops {
		n += o.Operations
	}
	return &bench.Result{Operations: n, Throughput: tput, Ops: ops}
}

func op(name string, n int64, avg float64, p99 int64) bench.OpSummary {
	return bench.OpSummary{Name: name, Operations: n, AvgMicros: avg, P99Micros: p99}
}

func TestAggregate(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []*bench.Result
		want Measure
	}{
		{"two clients: sum, weighted mean, worst p99", []*bench.Result{
			result(1000, op("READ", 100, 200, 900), op("UPDATE", 100, 1000, 5000)),
			result(500, op("READ", 300, 400, 800), op("UPDATE", 100, 3000, 7000), op("UPDATE-FAILED", 2, 50, 60)),
		}, Measure{Clients: 2, Operations: 602, Throughput: 1500, Reads: 400, ReadAvgUs: 350, ReadP99Us: 900,
			Updates: 200, UpdateAvgUs: 2000, UpdateP99Us: 7000, Failed: 2}},
		{"a client that did not start", []*bench.Result{nil, result(10, op("READ", 10, 100, 100))},
			Measure{Clients: 1, Operations: 10, Throughput: 10, Reads: 10, ReadAvgUs: 100, ReadP99Us: 100}},
		{"nothing", nil, Measure{}},
		{"NOT_FOUND reads count as failed", []*bench.Result{result(5, op("READ", 4, 100, 100), op("READ-FAILED", 1, 10, 10))},
			Measure{Clients: 1, Operations: 5, Throughput: 5, Reads: 4, ReadAvgUs: 100, ReadP99Us: 100, Failed: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Aggregate(tc.in); got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	c := &Cell{Runs: []Measure{
		{Clients: 2, Operations: 10, Throughput: 300, ReadAvgUs: 5, Failed: 1},
		{Clients: 2, Operations: 30, Throughput: 100, ReadAvgUs: 9},
		{Clients: 2, Operations: 20, Throughput: 200, ReadAvgUs: 7, Failed: 2},
	}}
	c.Summarize()
	m := c.Median
	if m.Throughput != 200 || m.Operations != 20 || m.ReadAvgUs != 7 || m.Clients != 2 || m.Failed != 3 {
		t.Errorf("median %+v (failures are summed)", m)
	}
	c.Runs = c.Runs[:2]
	c.Summarize()
	if c.Median.Throughput != 100 || math.Abs(c.Median.ReadAvgUs-5) > 0 {
		t.Errorf("even count takes the lower middle: %+v", c.Median)
	}
	c.Runs = nil
	c.Summarize()
	if c.Median != (Measure{}) {
		t.Errorf("no runs: %+v", c.Median)
	}
}

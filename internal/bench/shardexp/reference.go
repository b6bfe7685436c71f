package shardexp

import (
	"fmt"
	"strings"
)

// RefBaseline is the reference's baseline for one workload: 4 shards of
// one mongod, 4 mongos, 100M records (~128 GB), 128 threads over 4
// clients, w:1 j:true, MongoDB 3.4 on a 4-host all-flash vSAN cluster
// (shared/docs/reference-experiments.md §3).
type RefBaseline struct {
	OpsPerSec, ReadMs, UpdateMs float64
}

// RefBaselines by workload.
var RefBaselines = map[string]RefBaseline{
	"a": {28529, 0.64, 8.3},
	"b": {119554, 0.81, 5.7},
}

// RefScaleoutUpdateMs is the reference's average update latency at 2 and
// 8 shards (50M and 200M records, 64 and 256 threads), by workload.
var RefScaleoutUpdateMs = map[string][2]float64{"a": {5.9, 11.9}, "b": {4.1, 6.0}}

// RefW0UpdateMs is the reference's w:0 update latency (workload A).
const RefW0UpdateMs = 0.025

// Check compares one ratio of ours with the reference's shape: Want is
// ">1" or "<1"; Holds reports whether ours goes the same way.
type Check struct {
	Series    string  `json:"series"`
	Figure    string  `json:"figure"`
	Reference string  `json:"reference"`
	Want      string  `json:"want"`
	Ours      float64 `json:"ours"`
	Known     bool    `json:"known"` // both cells ran with nonzero figures
	Holds     bool    `json:"holds"`
}

// metric reads one figure of a cell's median.
type metric struct {
	name string
	get  func(Measure) float64
}

var (
	mThroughput = metric{"throughput", func(m Measure) float64 { return m.Throughput }}
	mRead       = metric{"read latency", func(m Measure) float64 { return m.ReadAvgUs }}
	mUpdate     = metric{"update latency", func(m Measure) float64 { return m.UpdateAvgUs }}
)

// checker builds Checks from a cell lookup.
type checker struct {
	cell func(Key) *Cell
	out  []Check
}

// ratio adds the check "metric of num / metric of den".
func (c *checker) ratio(series, figure, ref, want string, m metric, num, den Key) {
	c.add(Check{Series: series, Figure: figure, Reference: ref, Want: want}, c.cell(num), m, c.cell(den), m)
}

// add fills ch with ma of a / mb of b when both ran, and appends it.
func (c *checker) add(ch Check, a *Cell, ma metric, b *Cell, mb metric) {
	if a != nil && b != nil && a.Median.Operations > 0 && b.Median.Operations > 0 && mb.get(b.Median) > 0 {
		ch.Ours, ch.Known = ma.get(a.Median)/mb.get(b.Median), true
		ch.Holds = (ch.Want == ">1" && ch.Ours > 1) || (ch.Want == "<1" && ch.Ours < 1)
	}
	c.out = append(c.out, ch)
}

// Checks lists the reference's shapes for the selected series, with
// ours from cell (nil for a cell that did not run).
func Checks(cfg Config, cell func(Key) *Cell) []Check {
	c := &checker{cell: cell}
	s, has := cfg.Shards, func(w string) bool { return strings.Contains(strings.Join(cfg.Workloads, ","), w) }
	base := func(w string) Key { return Key{s, 1, w, DurW1J1} }
	if cfg.Has(SeriesBaseline) {
		if has("a") && has("b") {
			c.ratio(SeriesBaseline, "throughput B / A", "4.19 (119,554 / 28,529 ops/s)", ">1", mThroughput, base("b"), base("a"))
		}
		for _, w := range cfg.Workloads {
			r := RefBaselines[w]
			c.add(Check{Series: SeriesBaseline, Figure: "update / read latency, " + strings.ToUpper(w),
				Reference: fmt.Sprintf("%.1f (%.1f / %.2f ms)", r.UpdateMs/r.ReadMs, r.UpdateMs, r.ReadMs), Want: ">1"},
				cell(base(w)), mUpdate, cell(base(w)), mRead)
		}
	}
	if cfg.Has(SeriesDurability) {
		durabilityChecks(c, cfg)
	}
	if cfg.Has(SeriesTopology) && cfg.Members > 1 {
		for _, w := range cfg.Workloads {
			W, rs := strings.ToUpper(w), Key{s, cfg.Members, w, DurW1J1}
			c.ratio(SeriesTopology, "throughput rs=3 w:1 / rs=1, "+W, "< 1 (falls)", "<1", mThroughput, rs, base(w))
			c.ratio(SeriesTopology, "update latency rs=3 w:1 / rs=1, "+W, "> 1 (rises)", ">1", mUpdate, rs, base(w))
			c.ratio(SeriesTopology, `update latency rs=3 w:"majority" / w:1, `+W, "> 1 (rises)", ">1", mUpdate,
				Key{s, cfg.Members, w, DurMajority}, rs)
		}
	}
	if cfg.Has(SeriesScaleout) && len(cfg.Scaleout) > 1 {
		scaleoutChecks(c, cfg)
	}
	return c.out
}

func durabilityChecks(c *checker, cfg Config) {
	s := cfg.Shards
	for _, w := range cfg.Workloads {
		W := strings.ToUpper(w)
		k := func(d string) Key { return Key{s, 1, w, d} }
		c.ratio(SeriesDurability, "throughput w:1 j:false / w:1 j:true, "+W, "> 1 (rises)", ">1", mThroughput, k(DurW1J0), k(DurW1J1))
		c.ratio(SeriesDurability, "throughput w:0 / w:1 j:false, "+W, "> 1 (rises)", ">1", mThroughput, k(DurW0), k(DurW1J0))
		ref := "< 1 (falls)"
		if w == "a" {
			ref = fmt.Sprintf("%.3f (%.3f / %.1f ms)", RefW0UpdateMs/RefBaselines["a"].UpdateMs, RefW0UpdateMs, RefBaselines["a"].UpdateMs)
		}
		c.ratio(SeriesDurability, "update latency w:0 / w:1 j:true, "+W, ref, "<1", mUpdate, k(DurW0), k(DurW1J1))
		c.ratio(SeriesDurability, "read latency w:1 j:false / w:1 j:true, "+W, "> 1 (rises: less cache)", ">1", mRead, k(DurW1J0), k(DurW1J1))
	}
	if len(cfg.Workloads) == 2 {
		gain := func(w string) *Cell {
			a, b := c.cell(Key{s, 1, w, DurW0}), c.cell(Key{s, 1, w, DurW1J1})
			if a == nil || b == nil || b.Median.Throughput <= 0 {
				return nil
			}
			return &Cell{Median: Measure{Operations: 1, Throughput: a.Median.Throughput / b.Median.Throughput}}
		}
		c.add(Check{Series: SeriesDurability, Figure: "throughput gain w:0 / w:1 j:true, A over B",
			Reference: "> 1 (write options matter more to A)", Want: ">1"}, gain("a"), mThroughput, gain("b"), mThroughput)
	}
}

func scaleoutChecks(c *checker, cfg Config) {
	n := cfg.Scaleout
	for _, w := range cfg.Workloads {
		W := strings.ToUpper(w)
		k := func(shards int) Key { return Key{shards, 1, w, DurW1J1} }
		for i := 1; i < len(n); i++ {
			c.ratio(SeriesScaleout, fmt.Sprintf("throughput %d / %d shards, %s", n[i], n[i-1], W), "> 1 (rises)", ">1",
				mThroughput, k(n[i]), k(n[i-1]))
		}
		first, last := n[0], n[len(n)-1]
		ref := "> 1 (rises)"
		if r, ok := RefScaleoutUpdateMs[w]; ok && first == 2 && last == 8 {
			ref = fmt.Sprintf("%.2f (%.1f -> %.1f ms)", r[1]/r[0], r[0], r[1])
		}
		c.ratio(SeriesScaleout, fmt.Sprintf("update latency %d / %d shards, %s", last, first, W), ref, ">1", mUpdate, k(last), k(first))
	}
}

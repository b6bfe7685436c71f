package shardexp

import (
	"fmt"
	"slices"
	"time"
)

// Key names one cell.
type Key struct {
	Shards     int    `json:"shards"`
	Members    int    `json:"members"` // 1 = a single member; N >= 3 = N-1 data members + an arbiter
	Workload   string `json:"workload"`
	Durability string `json:"durability"`
}

func (k Key) String() string {
	return fmt.Sprintf("%d shards rs=%d workload %s %s", k.Shards, k.Members, k.Workload, DurabilityLabel(k.Durability))
}

// Topology is one cluster and the cells run on it, in run order.
type Topology struct {
	Shards  int   `json:"shards"`
	Members int   `json:"members"`
	Records int64 `json:"records"`
	Threads int   `json:"threads"`
	Keys    []Key `json:"keys"`
}

func (t Topology) String() string { return fmt.Sprintf("%d shards rs=%d", t.Shards, t.Members) }

// SeriesKeys lists the cells series s reports, in table order.
func (c Config) SeriesKeys(s string) []Key {
	var out []Key
	for _, w := range c.Workloads {
		switch s {
		case SeriesBaseline:
			out = append(out, Key{c.Shards, 1, w, DurW1J1})
		case SeriesDurability:
			for _, d := range c.Durability {
				out = append(out, Key{c.Shards, 1, w, d})
			}
		case SeriesTopology:
			out = append(out, Key{c.Shards, 1, w, DurW1J1})
			if c.Members > 1 {
				out = append(out, Key{c.Shards, c.Members, w, DurW1J1}, Key{c.Shards, c.Members, w, DurMajority})
			}
		case SeriesScaleout:
			for _, n := range c.Scaleout {
				out = append(out, Key{n, 1, w, DurW1J1})
			}
		}
	}
	return out
}

// Plan groups the selected series' cells, each once, by cluster, in
// order of first appearance; within a cluster the cells run by
// durability rank (w:0 last), then workload.
func Plan(c Config) []Topology {
	var out []Topology
	idx := map[[2]int]int{}
	seen := map[Key]bool{}
	for _, s := range AllSeries {
		if !c.Has(s) {
			continue
		}
		for _, k := range c.SeriesKeys(s) {
			if seen[k] {
				continue
			}
			seen[k] = true
			tk := [2]int{k.Shards, k.Members}
			i, ok := idx[tk]
			if !ok {
				i = len(out)
				idx[tk] = i
				out = append(out, Topology{Shards: k.Shards, Members: k.Members, Records: c.RecordsFor(k.Shards),
					Threads: c.ThreadsFor(k.Shards)})
			}
			out[i].Keys = append(out[i].Keys, k)
		}
	}
	for i := range out {
		slices.SortStableFunc(out[i].Keys, func(a, b Key) int {
			if d := durRank(a.Durability) - durRank(b.Durability); d != 0 {
				return d
			}
			return slices.Index(c.Workloads, a.Workload) - slices.Index(c.Workloads, b.Workload)
		})
	}
	return out
}

// durRank orders a cluster's cells: acknowledged writes first, w:0 last.
func durRank(d string) int {
	return map[string]int{DurW1J1: 0, DurW1J0: 1, DurMajority: 2, DurW0: 3}[d]
}

// URIOptions are the connection-string options of durability d.
func URIOptions(d string) string {
	switch d {
	case DurW0:
		return "w=0&journal=false"
	case DurW1J0:
		return "w=1&journal=false"
	case DurMajority:
		return "w=majority&journal=true"
	default:
		return "w=1&journal=true"
	}
}

// DurabilityLabel is d as the reference writes it.
func DurabilityLabel(d string) string {
	switch d {
	case DurW0:
		return "w:0 j:false"
	case DurW1J0:
		return "w:1 j:false"
	case DurMajority:
		return `w:"majority" j:true`
	case DurW1J1:
		return "w:1 j:true"
	}
	return d
}

// MembersLabel is "rs=1" or "rs=N (N-1 data + arbiter)".
func MembersLabel(m int) string {
	if m <= 1 {
		return "rs=1"
	}
	return fmt.Sprintf("rs=%d (%d data + arbiter)", m, m-1)
}

// Estimate is roughly how long cfg takes on a 2-core machine: every run
// of every cell, plus per cluster its start, warm-up and stop, and the
// load at about 2,000 inserts/s (what a loaded 2-core machine gave).
func Estimate(cfg Config) time.Duration {
	const perCluster, loadRate = 10 * time.Second, 2000
	var d time.Duration
	per := cfg.Duration + time.Second // connecting and settling
	if cfg.Duration == 0 {
		per = time.Duration(cfg.Operations/loadRate+1) * time.Second
	}
	for _, t := range Plan(cfg) {
		d += perCluster + max(cfg.Warmup, 0) + time.Duration(t.Records/loadRate)*time.Second
		d += time.Duration(len(t.Keys)*cfg.Runs) * per
	}
	return d
}

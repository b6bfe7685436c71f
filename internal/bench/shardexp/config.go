package shardexp

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Series names (--series).
const (
	SeriesBaseline   = "baseline"
	SeriesDurability = "durability"
	SeriesTopology   = "topology"
	SeriesScaleout   = "scaleout"
)

// AllSeries in the order they are reported.
var AllSeries = []string{SeriesBaseline, SeriesDurability, SeriesTopology, SeriesScaleout}

// Durability options (--durability), as the reference names them.
const (
	DurW0       = "w0"       // w:0, j:false: nothing acknowledged
	DurW1J0     = "w1j0"     // w:1, j:false: acknowledged in memory
	DurW1J1     = "w1j1"     // w:1, j:true: the baseline
	DurMajority = "majority" // w:"majority", j:true
)

// AllDurability in the order they are reported.
var AllDurability = []string{DurW0, DurW1J0, DurW1J1, DurMajority}

// Config is one experiment. Zero values mean the defaults of WithDefaults.
type Config struct {
	Series     []string      // which tables to run (AllSeries)
	Workloads  []string      // YCSB core workloads, "a" and "b"
	Shards     int           // shards of the baseline, durability and topology series
	Members    int           // members of a replicated shard in the topology series (rs=N: N-1 data + arbiter)
	Routers    int           // routers; one YCSB client per router
	Records    int64         // records at Shards shards (scaled with the shard count)
	Threads    int           // client threads at Shards shards, over all clients (scaled likewise)
	Durability []string      // the durability series' options
	Scaleout   []int         // the scale-out series' shard counts
	Duration   time.Duration // per run of a cell (maxexecutiontime, whole seconds)
	Warmup     time.Duration // unmeasured workload A per cluster before its cells; 0 = none
	Operations int64         // per cell over all clients; 0 = as many as Duration allows
	Runs       int           // runs per cell (median reported)
	Seed       uint64        // YCSB seed of run 1
	Bin        string        // relaydb binary for the cluster; default this executable
	Auth, TLS  bool          // secure the clusters as `relaydb cluster up --auth/--tls`
	Dir        string        // parent of the cluster directories; default a temporary one
	Keep       bool          // keep cluster directories
}

// WithDefaults fills zero fields: the default run fits in about 12
// minutes on a 2-core machine.
func (c Config) WithDefaults() Config {
	if len(c.Series) == 0 {
		c.Series = slices.Clone(AllSeries)
	}
	if len(c.Workloads) == 0 {
		c.Workloads = []string{"a", "b"}
	}
	if c.Shards == 0 {
		c.Shards = 2
	}
	if c.Members == 0 {
		c.Members = 3
	}
	if c.Routers == 0 {
		c.Routers = 2
	}
	if c.Records == 0 {
		c.Records = 20000
	}
	if c.Threads == 0 {
		c.Threads = 16
	}
	if len(c.Durability) == 0 {
		c.Durability = slices.Clone(AllDurability)
	}
	if len(c.Scaleout) == 0 {
		c.Scaleout = []int{2, 4, 8}
	}
	if c.Duration == 0 && c.Operations == 0 {
		c.Duration = 10 * time.Second
	}
	if c.Runs == 0 {
		c.Runs = 3
	}
	if c.Warmup == 0 {
		c.Warmup = 5 * time.Second
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	return c
}

// Quick shrinks c for a smoke run (--quick): small data, one short run
// per cell, scale-out 2 -> 4. Fields set explicitly stay.
func (c Config) Quick() Config {
	if c.Records == 0 {
		c.Records = 2000
	}
	if c.Threads == 0 {
		c.Threads = 8
	}
	if c.Duration == 0 && c.Operations == 0 {
		c.Duration = 4 * time.Second
	}
	if len(c.Scaleout) == 0 {
		c.Scaleout = []int{2, 4}
	}
	if c.Runs == 0 {
		c.Runs = 1
	}
	if c.Warmup == 0 {
		c.Warmup = 2 * time.Second
	}
	return c.WithDefaults()
}

// Validate reports the first reason c cannot run, or nil.
func (c Config) Validate() error {
	var errs []error
	for _, s := range c.Series {
		if !slices.Contains(AllSeries, s) {
			errs = append(errs, fmt.Errorf("unknown series %q (want %s)", s, strings.Join(AllSeries, ", ")))
		}
	}
	for _, w := range c.Workloads {
		if w != "a" && w != "b" {
			errs = append(errs, fmt.Errorf("workload %q: the reference ran a and b", w))
		}
	}
	for _, d := range c.Durability {
		if !slices.Contains(AllDurability, d) {
			errs = append(errs, fmt.Errorf("unknown durability %q (want %s)", d, strings.Join(AllDurability, ", ")))
		}
	}
	for _, n := range append([]int{c.Shards}, c.Scaleout...) {
		if n < 1 || n > 16 {
			errs = append(errs, fmt.Errorf("shard count %d out of 1..16", n))
		}
	}
	switch {
	case c.Members < 1 || c.Members > 7 || c.Members == 2:
		errs = append(errs, fmt.Errorf("--members %d: 1, or 3..7 (N-1 data members and an arbiter)", c.Members))
	case c.Routers < 1 || c.Routers > 8:
		errs = append(errs, fmt.Errorf("--routers %d out of 1..8", c.Routers))
	case c.Records < 1 || c.Threads < 1 || c.Runs < 1:
		errs = append(errs, errors.New("--records, --threads and --runs must be positive"))
	case c.Duration < 0 || c.Operations < 0:
		errs = append(errs, errors.New("--duration and --operations must not be negative"))
	case c.Duration > 0 && c.Duration < time.Second:
		errs = append(errs, fmt.Errorf("--duration %v: at least 1s (YCSB's maxexecutiontime is in seconds)", c.Duration))
	case c.Warmup > 0 && c.Warmup < time.Second:
		errs = append(errs, fmt.Errorf("--warmup %v: 0 or at least 1s", c.Warmup))
	}
	return errors.Join(errs...)
}

// RecordsFor is the record count at n shards: Records scaled by
// n/Shards, as the reference's 50M -> 100M -> 200M.
func (c Config) RecordsFor(n int) int64 { return max(c.Records*int64(n)/int64(c.Shards), 1) }

// ThreadsFor is the client thread count at n shards, scaled like
// RecordsFor (the reference's 64 -> 128 -> 256), at least one per router.
func (c Config) ThreadsFor(n int) int { return max(c.Threads*n/c.Shards, c.Routers) }

// Has reports whether series s is selected.
func (c Config) Has(s string) bool { return slices.Contains(c.Series, s) }

// ParseList splits a comma-separated flag value, dropping blanks.
func ParseList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(strings.ToLower(f)); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// ParseInts splits a comma-separated list of integers.
func ParseInts(s string) ([]int, error) {
	var out []int
	for _, f := range ParseList(s) {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", f)
		}
		out = append(out, n)
	}
	return out, nil
}

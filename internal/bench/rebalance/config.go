package rebalance

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Config is one invocation of the experiment.
type Config struct {
	Shards         int           // shards before the during phase
	Adds           []int         // cases: shards added at once (1: 2 -> 3; 2: 2 -> 4, two migrations at a time)
	ShardMembers   int           // data members per shard
	ConfigMembers  int           // config server members
	Routers        int           // routers; client threads are spread over them
	Records        int64         // YCSB records loaded
	Threads        int           // client threads of the workload
	Workload       string        // YCSB core workload (a or b)
	Fraction       float64       // target rate: this fraction of the probe's throughput
	ChunkSizeMB    int           // config.settings chunksize
	ChunksPerShard int           // numInitialChunks / Shards at shardCollection
	RoundInterval  time.Duration // balancerRoundIntervalMS
	Probe          time.Duration // unthrottled probe
	Before, After  time.Duration // phase lengths
	Quiet          time.Duration // compliance this long ends the during phase
	MaxDuring      time.Duration // bound on the during phase
	Runs           int           // runs per case; medians reported
	Seed           uint64
	Dir, Bin       string
	Auth, TLS      bool // secure the clusters as `relaydb cluster up --auth/--tls`
	Keep           bool // keep cluster directories
}

// GoalRatio is issue #12's bound on p99 during / p99 before.
const GoalRatio = 2.0

// WithDefaults fills zero fields.
func (c Config) WithDefaults() Config {
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	def(&c.Shards, 2)
	def(&c.ShardMembers, 1)
	def(&c.ConfigMembers, 1)
	def(&c.Routers, 2)
	def(&c.Threads, 8)
	def(&c.ChunkSizeMB, 1)
	def(&c.ChunksPerShard, 8)
	def(&c.Runs, 3)
	if len(c.Adds) == 0 {
		c.Adds = []int{1}
	}
	if c.Records == 0 {
		c.Records = 20000
	}
	if c.Workload == "" {
		c.Workload = "a"
	}
	if c.Fraction == 0 {
		c.Fraction = 0.5
	}
	dur := func(p *time.Duration, v time.Duration) {
		if *p == 0 {
			*p = v
		}
	}
	dur(&c.RoundInterval, time.Second)
	dur(&c.Probe, 5*time.Second)
	dur(&c.Before, 20*time.Second)
	dur(&c.After, 20*time.Second)
	dur(&c.Quiet, 3*time.Second)
	dur(&c.MaxDuring, 10*time.Minute)
	if c.Seed == 0 {
		c.Seed = 1
	}
	return c
}

// Validate reports the first bad field of a defaulted config.
func (c Config) Validate() error {
	switch {
	case c.Shards < 1 || c.ShardMembers < 1 || c.ConfigMembers < 1 || c.Routers < 1:
		return errors.New("--shards, --shard-members, --config-members and --routers must be at least 1")
	case slices.ContainsFunc(c.Adds, func(n int) bool { return n < 1 || n > 8 }):
		return fmt.Errorf("--add: shards added at once must be 1 to 8, got %v", c.Adds)
	case c.Records < 1 || c.Threads < 1 || c.Runs < 1:
		return errors.New("--records, --threads and --runs must be at least 1")
	case c.Workload != "a" && c.Workload != "b":
		return fmt.Errorf("--workload: a or b, got %q", c.Workload)
	case c.Fraction <= 0 || c.Fraction > 1:
		return fmt.Errorf("--fraction must be in (0, 1], got %v", c.Fraction)
	case c.ChunkSizeMB < 1 || c.ChunkSizeMB > 1024:
		return fmt.Errorf("--chunk-size-mb must be 1 to 1024, got %d", c.ChunkSizeMB)
	case c.ChunksPerShard < 1 || c.ChunksPerShard > 1024:
		return fmt.Errorf("--chunks-per-shard must be 1 to 1024, got %d", c.ChunksPerShard)
	case c.RoundInterval < time.Millisecond || c.Probe < time.Second || c.Before < time.Second || c.After < time.Second:
		return errors.New("--round-interval must be at least 1ms; --probe, --before and --after at least 1s")
	case c.Quiet < 0 || c.MaxDuring < time.Second:
		return errors.New("--quiet must not be negative; --max-during at least 1s")
	}
	return nil
}

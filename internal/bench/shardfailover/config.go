package shardfailover

import (
	"errors"
	"fmt"
	"time"
)

// Modes: a replica-set shard (3 members) or a single-member shard.
const (
	ModeReplicaSet = "rs"
	ModeSingle     = "single"
)

// Config is one "relaydb bench experiment shard-failover" run. Zero
// values mean the default written on each field.
type Config struct {
	Dir           string        // parent directory of the clusters; default a temp dir, removed after
	Bin           string        // relaydb binary; default the running executable
	Auth, TLS     bool          // secure the cluster as `relaydb cluster up --auth/--tls`
	Modes         []string      // ModeReplicaSet and/or ModeSingle; default both
	Trials        int           // kills per mode; default 3
	Shards        int           // shards; default 2
	ShardMembers  int           // members of a replica-set shard; default 3
	Routers       int           // routers; default 2
	ConfigMembers int           // config servers; default 3
	RecordCount   int64         // YCSB recordcount; default 1000
	Threads       int           // YCSB threads; default 8
	Settle        time.Duration // steady load before each kill; default 3 s
	Tail          time.Duration // load kept after recovery, inside the measured window; default 1 s
	StallFactor   float64       // a stall is an op longer than this x the pre-kill p99; default 10
	MinStall      time.Duration // floor of the stall threshold; default 50 ms
	RestartAfter  time.Duration // single-member mode: kill to restart; default 0 (at once)
	TrialTimeout  time.Duration // bound on one trial's recovery; default 120 s
	OpTimeout     time.Duration // bound on one client operation; default 30 s
	Seed          uint64        // YCSB seed; 0 = random
}

// WithDefaults returns c with zero fields set to their defaults.
func (c Config) WithDefaults() Config {
	if len(c.Modes) == 0 {
		c.Modes = []string{ModeReplicaSet, ModeSingle}
	}
	setInt(&c.Trials, 3)
	setInt(&c.Shards, 2)
	setInt(&c.ShardMembers, 3)
	setInt(&c.Routers, 2)
	setInt(&c.ConfigMembers, 3)
	setInt(&c.Threads, 8)
	if c.RecordCount == 0 {
		c.RecordCount = 1000
	}
	setDur(&c.Settle, 3*time.Second)
	setDur(&c.Tail, time.Second)
	setDur(&c.MinStall, 50*time.Millisecond)
	setDur(&c.TrialTimeout, 120*time.Second)
	setDur(&c.OpTimeout, 30*time.Second)
	if c.StallFactor == 0 {
		c.StallFactor = 10
	}
	return c
}

func setInt(p *int, def int) {
	if *p == 0 {
		*p = def
	}
}

func setDur(p *time.Duration, def time.Duration) {
	if *p == 0 {
		*p = def
	}
}

// Validate reports the first reason c cannot run, or nil.
func (c Config) Validate() error {
	for _, m := range c.Modes {
		if m != ModeReplicaSet && m != ModeSingle {
			return fmt.Errorf("shardfailover: unknown mode %q (want %s or %s)", m, ModeReplicaSet, ModeSingle)
		}
	}
	switch {
	case c.Trials < 0 || c.Shards < 0 || c.Routers < 0 || c.ConfigMembers < 0 || c.Threads < 0 || c.RecordCount < 0:
		return errors.New("shardfailover: counts must not be negative")
	case c.ShardMembers < 0 || c.ShardMembers == 1 || c.ShardMembers == 2:
		return errors.New("shardfailover: -shard-members of a replica-set shard must be at least 3 (the single mode has 1)")
	case c.Settle < 0 || c.Tail < 0 || c.MinStall < 0 || c.RestartAfter < 0 || c.TrialTimeout < 0 || c.OpTimeout < 0:
		return errors.New("shardfailover: durations must not be negative")
	case c.StallFactor < 0:
		return errors.New("shardfailover: -stall-factor must not be negative")
	}
	return nil
}

// members is the shard size of mode.
func (c Config) members(mode string) int {
	if mode == ModeSingle {
		return 1
	}
	return c.ShardMembers
}

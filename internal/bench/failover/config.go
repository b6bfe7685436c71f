package failover

import (
	"errors"
	"time"
)

// Config is one "relaydb bench failover" run. Zero values mean the
// default written on each field.
type Config struct {
	Dir          string        // cluster directory; default a fresh temp dir, removed after
	Bin          string        // relaydb binary; default the running executable
	Trials       int           // kill -9 failovers; default 10
	Writers      int           // writer goroutines; default 2
	Settle       time.Duration // steady writing before each kill; default 2 s
	StallAfter   time.Duration // a write taking longer counts as stalled; default 500 ms
	TrialTimeout time.Duration // bound on election + recovery + rejoin of one trial; default 60 s
	LagDuration  time.Duration // workload A run time of the lag run; 0 = default 20 s, <0 = skip
	LagThreads   int           // YCSB threads of the lag run; default 8
	LagW         string        // write concern w of the lag run; default "1"
	ExtraArgs    []string      // extra `relaydb serve` arguments (default settings: none)
	Auth, TLS    bool          // secure the sets as `relaydb cluster up --auth/--tls`
}

func (c Config) withDefaults() Config {
	if c.Trials == 0 {
		c.Trials = 10
	}
	if c.Writers == 0 {
		c.Writers = 2
	}
	if c.Settle == 0 {
		c.Settle = 2 * time.Second
	}
	if c.StallAfter == 0 {
		c.StallAfter = 500 * time.Millisecond
	}
	if c.TrialTimeout == 0 {
		c.TrialTimeout = 60 * time.Second
	}
	if c.LagDuration == 0 {
		c.LagDuration = 20 * time.Second
	}
	if c.LagThreads == 0 {
		c.LagThreads = 8
	}
	if c.LagW == "" {
		c.LagW = "1"
	}
	return c
}

// Validate reports the first reason c cannot run, or nil.
func (c Config) Validate() error {
	switch {
	case c.Trials < 0:
		return errors.New("failover: -trials must not be negative")
	case c.Writers < 0:
		return errors.New("failover: -writers must not be negative")
	case c.Settle < 0 || c.StallAfter < 0 || c.TrialTimeout < 0:
		return errors.New("failover: durations must not be negative")
	}
	return nil
}

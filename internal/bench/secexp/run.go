package secexp

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/relaydb/relaydb/internal/bench"
)

// Config is one experiment; zero fields take the defaults noted.
type Config struct {
	Binary   string   // relaydb binary to start
	Variants []string // default plain, auth, tls, auth+tls; plain is always run
	Runs     int      // default 3
	Records  int64    // YCSB records loaded per node; default 20000
	Ops      int64    // workload C operations per node; default 60000
	Threads  int      // client threads; default 8
	Seed     uint64   // 0 = random
	Log      io.Writer
}

func (c *Config) defaults() {
	if len(c.Variants) == 0 {
		c.Variants = []string{Plain, Auth, TLS, AuthTLS}
	}
	if c.Variants[0] != Plain {
		rest := c.Variants
		c.Variants = []string{Plain}
		for _, v := range rest {
			if v != Plain {
				c.Variants = append(c.Variants, v)
			}
		}
	}
	c.Runs = max(c.Runs, 1)
	if c.Records == 0 {
		c.Records = 20000
	}
	if c.Ops == 0 {
		c.Ops = 60000
	}
	if c.Threads == 0 {
		c.Threads = 8
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
}

// Sample is one variant's node in one run.
type Sample struct {
	Variant string        `json:"variant"`
	Run     int           `json:"run"`
	Load    *bench.Result `json:"load"`
	Read    *bench.Result `json:"read"` // workload C
}

// Execute runs the experiment. A failed run ends it with what was measured.
func Execute(ctx context.Context, cfg Config) (*Report, error) {
	cfg.defaults()
	vs := make([]variant, len(cfg.Variants))
	for i, name := range cfg.Variants {
		v, err := parseVariant(name)
		if err != nil {
			return nil, err
		}
		vs[i] = v
	}
	dir, err := os.MkdirTemp("", "relaydb-secexp-")
	if err != nil {
		return nil, fmt.Errorf("temp dir: %w", err)
	}
	defer os.RemoveAll(dir)
	certs, err := newCertSet(dir)
	if err != nil {
		return nil, err
	}
	rep := &Report{Config: cfg}
	for run := 0; run < cfg.Runs; run++ {
		for i := range vs {
			v := vs[(i+run)%len(vs)]
			s, err := measure(ctx, cfg, v, certs, run)
			if err != nil {
				rep.finish()
				return rep, fmt.Errorf("run %d: %w", run+1, err)
			}
			rep.Samples = append(rep.Samples, s)
		}
	}
	rep.finish()
	return rep, nil
}

// measure starts v's node, loads it and runs workload C on it.
func measure(ctx context.Context, cfg Config, v variant, certs *certSet, run int) (Sample, error) {
	srv, uri, err := v.start(ctx, cfg.Binary, certs)
	if err != nil {
		return Sample{}, err
	}
	defer srv.Stop()
	s := Sample{Variant: v.name, Run: run + 1}
	if s.Load, err = phase(ctx, cfg, uri, bench.PhaseLoad); err != nil {
		return s, fmt.Errorf("%s load: %w", v.name, err)
	}
	if s.Read, err = phase(ctx, cfg, uri, bench.PhaseRun); err != nil {
		return s, fmt.Errorf("%s workload c: %w", v.name, err)
	}
	fmt.Fprintf(cfg.Log, "security: run %d %-8s load %8.0f ops/s (%5.1f core-us/op)  c %8.0f ops/s (%5.1f core-us/op)\n",
		run+1, v.name, s.Load.Throughput, s.Load.ServerCPUPerOp, s.Read.Throughput, s.Read.ServerCPUPerOp)
	return s, nil
}

func phase(ctx context.Context, cfg Config, uri, which string) (*bench.Result, error) {
	p, _ := bench.Preset("c") // presets are constants: never fails
	p["recordcount"] = strconv.FormatInt(cfg.Records, 10)
	p["operationcount"] = strconv.FormatInt(cfg.Ops, 10)
	p["threadcount"] = strconv.Itoa(cfg.Threads)
	p["mongodb.url"] = uri
	return bench.RunPhase(ctx, bench.PhaseConfig{Phase: which, Props: p, Drop: which == bench.PhaseLoad, Seed: cfg.Seed})
}

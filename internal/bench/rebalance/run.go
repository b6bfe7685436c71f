package rebalance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/relaydb/relaydb/internal/bench"
	"github.com/relaydb/relaydb/internal/bench/experiment"
	"github.com/relaydb/relaydb/internal/cluster"
)

// Execute runs every case of cfg Runs times, each on a fresh cluster,
// and returns the report so far with the joined errors.
func Execute(ctx context.Context, cfg Config, command string, log io.Writer) (*Report, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	dir, done, err := experiment.WorkDir(cfg.Dir, "relaydb-rebalance-", cfg.Keep)
	if err != nil {
		return nil, fmt.Errorf("rebalance: %w", err)
	}
	defer done()
	cfg.Dir = dir
	start := time.Now()
	rep := &Report{Command: command, Machine: experiment.ThisMachine(experiment.BuildCommit, start), Config: cfg}
	rep.Config.Dir = ""
	var errs []error
	for run := 1; run <= cfg.Runs; run++ { // runs outermost: cases interleave
		for ci, add := range cfg.Adds {
			if ctx.Err() != nil {
				break
			}
			if len(rep.Cases) <= ci {
				rep.Cases = append(rep.Cases, Case{Add: add, From: cfg.Shards})
			}
			dir := filepath.Join(cfg.Dir, fmt.Sprintf("add%d-run%d", add, run))
			r, err := runOnce(ctx, cfg, add, run, dir, log)
			if err != nil {
				r.Error = err.Error()
				errs = append(errs, fmt.Errorf("+%d run %d: %w", add, run, err))
			}
			fmt.Fprintln(log, runLine(add, r))
			rep.Cases[ci].Runs = append(rep.Cases[ci].Runs, r)
			if !cfg.Keep {
				_ = os.RemoveAll(dir)
			}
		}
	}
	for i := range rep.Cases {
		rep.Cases[i].Summarize()
	}
	rep.DurationSecs = time.Since(start).Seconds()
	return rep, errors.Join(errs...)
}

// runOnce is one run: a fresh cluster, load, probe, the three phases.
func runOnce(ctx context.Context, cfg Config, add, n int, dir string, log io.Writer) (Run, error) {
	r := Run{N: n}
	fmt.Fprintf(log, "+%d run %d: starting %d shards x %d members, %d config, %d routers in %s\n",
		add, n, cfg.Shards, cfg.ShardMembers, cfg.ConfigMembers, cfg.Routers, dir)
	sc, err := startCluster(ctx, cfg, dir)
	if err != nil {
		return r, err
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = sc.Down(dctx)
	}()
	routers, err := routerClients(sc)
	if err != nil {
		return r, err
	}
	defer disconnect(routers)
	if err := configure(ctx, sc, routers[0], cfg); err != nil {
		return r, err
	}
	pools, sample, err := pools(ctx, sc)
	if err != nil {
		return r, err
	}
	defer func() {
		for _, p := range pools {
			_ = p.Close()
		}
	}()
	if err := loadAndProbe(ctx, cfg, pools, &r, log); err != nil {
		return r, err
	}
	if _, _, err := waitBalanced(ctx, routers[0], 0, cfg.MaxDuring); err != nil {
		return r, fmt.Errorf("balanced before the run: %w", err)
	}
	if r.ChunksBefore, err = chunks(ctx, sc); err != nil {
		return r, err
	}
	err = phases(ctx, cfg, sc, routers[0], pools, add, &r, log)
	r.ErrorSample = sample.Lines()
	if c, cerr := chunks(ctx, sc); cerr == nil {
		r.ChunksAfter = c
	}
	return r, err
}

// pools opens one bench.Mongo per router (w:1, j:true), all writing the
// clients' failure messages to one sample.
func pools(ctx context.Context, sc *cluster.Sharded) ([]*bench.Mongo, *experiment.LineSample, error) {
	sample := &experiment.LineSample{Skip: "context canceled"}
	var out []*bench.Mongo
	for _, rt := range sc.Routers {
		uri := sc.Spec().Secrets.URI("mongodb://"+rt.Host+"/"+Database+"?w=1&journal=true", true)
		m, err := bench.ConnectMongo(ctx, uri, bench.Properties{}, sample)
		if err != nil {
			for _, p := range out {
				_ = p.Close()
			}
			return nil, nil, err
		}
		out = append(out, m)
	}
	return out, sample, nil
}

// props are the YCSB properties of cfg's workload.
func props(cfg Config) (*bench.Workload, error) {
	p, err := bench.Preset(cfg.Workload)
	if err != nil {
		return nil, err
	}
	p["recordcount"] = strconv.FormatInt(cfg.Records, 10)
	p["operationcount"] = strconv.FormatInt(1<<40, 10)
	p["table"] = Table
	return bench.NewWorkload(p)
}

// loadAndProbe loads the records and measures the unthrottled throughput.
func loadAndProbe(ctx context.Context, cfg Config, pools []*bench.Mongo, r *Run, log io.Writer) error {
	w, err := props(cfg)
	if err != nil {
		return err
	}
	var i int
	var mu sync.Mutex
	plain := func() bench.DB {
		mu.Lock()
		defer mu.Unlock()
		i++
		return pools[i%len(pools)].NewWorker()
	}
	start := time.Now()
	res, err := bench.Run(ctx, w, bench.Options{Phase: bench.PhaseLoad, Threads: cfg.Threads, Seed: cfg.Seed}, plain, nil)
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	r.LoadSecs = time.Since(start).Seconds()
	if res.Operations != cfg.Records {
		return fmt.Errorf("load: %d of %d records", res.Operations, cfg.Records)
	}
	if w, err = props(cfg); err != nil {
		return err
	}
	res, err = bench.Run(ctx, w, bench.Options{Phase: bench.PhaseRun, Threads: cfg.Threads, MaxExecution: cfg.Probe,
		Seed: cfg.Seed + 1}, plain, nil)
	if err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	r.ProbeOpsSec, r.TargetOpsSec = res.Throughput, res.Throughput*cfg.Fraction
	fmt.Fprintf(log, "  loaded %d in %.1fs; probe %.0f ops/s -> target %.0f ops/s\n", cfg.Records, r.LoadSecs, r.ProbeOpsSec, r.TargetOpsSec)
	if r.TargetOpsSec <= 0 {
		return errors.New("probe: no operation completed")
	}
	return nil
}

func runLine(add int, r Run) string {
	b, d := r.Stats(PhaseBefore), r.Stats(PhaseDuring)
	s := fmt.Sprintf("+%d run %d: p99 before %.2f ms, during %.2f ms (x%.2f), during %.1fs, moved %.1f MB in %d migrations (%.2f MB/s; per migration median %.2f MB/s), failed %d/%d/%d",
		add, r.N, b.All.P99, d.All.P99, r.P99Ratio(), d.Secs, float64(r.Moves.Bytes)/MB, r.Moves.Count, r.Moves.MBPerSec,
		r.Moves.PerMigMedMB, b.Failed, d.Failed, r.Stats(PhaseAfter).Failed)
	if r.Error != "" {
		s += "; ERROR: " + r.Error
	}
	return s
}

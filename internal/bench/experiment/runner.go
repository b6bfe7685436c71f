package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/relaydb/relaydb/internal/bench"
)

// PhaseFunc runs one YCSB phase; bench.RunPhase is the real one.
type PhaseFunc func(ctx context.Context, cfg bench.PhaseConfig) (*bench.Result, error)

// Runner runs a matrix.
type Runner struct {
	Config Config
	Start  Starter   // default ClusterStarter(Config)
	Phase  PhaseFunc // default bench.RunPhase
	Log    io.Writer // one line per run; default io.Discard
	// RunTimeout bounds one load; default 15 minutes.
	RunTimeout time.Duration
}

// Run runs every cell and returns them in Config.Keys order. Failures of
// one cluster or run are recorded in the cell (Cell.Error) and the
// matrix goes on; the returned error joins them, so a caller can tell a
// complete matrix from a partial one.
func (r *Runner) Run(ctx context.Context) ([]*Cell, error) {
	cfg := r.Config.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r.defaults(cfg)
	cells := map[Key]*Cell{}
	var order []*Cell
	for _, k := range cfg.Keys() {
		c := &Cell{Key: k}
		cells[k] = c
		order = append(order, c)
	}
	var errs []error
	total, done := len(order)*cfg.Runs, 0
	for _, g := range cfg.RunOrder() {
		if err := ctx.Err(); err != nil {
			errs = append(errs, err)
			break
		}
		err := r.runGroup(ctx, cfg, g, cells, &done, total)
		if err != nil {
			errs = append(errs, err)
		}
	}
	for _, c := range order {
		c.Summarize()
	}
	return order, errors.Join(errs...)
}

func (r *Runner) defaults(cfg Config) {
	if r.Start == nil {
		r.Start = ClusterStarter(cfg)
	}
	if r.Phase == nil {
		r.Phase = bench.RunPhase
	}
	if r.Log == nil {
		r.Log = io.Discard
	}
	if r.RunTimeout == 0 {
		r.RunTimeout = 15 * time.Minute
	}
}

// runGroup starts g's cluster and runs its cells, runs outermost so the
// write concerns interleave.
func (r *Runner) runGroup(ctx context.Context, cfg Config, g Group, cells map[Key]*Cell, done *int, total int) error {
	dir := filepath.Join(cfg.Dir, fmt.Sprintf("lat%dus-n%d-%s", g.LatencyUs, g.Nodes, g.Mode))
	if !cfg.Keep {
		defer os.RemoveAll(dir)
	}
	start := time.Now()
	set, err := r.Start(ctx, g, dir)
	if err != nil {
		for _, w := range cfg.W {
			cells[Key{g.LatencyUs, g.Nodes, w, g.Mode}].Error = err.Error()
		}
		*done += len(cfg.W) * cfg.Runs
		return err
	}
	fmt.Fprintf(r.Log, "started %d members (chaining %s, %s) in %v: %s\n", g.Nodes, g.Mode,
		latencyLabel(g.LatencyUs), time.Since(start).Round(time.Millisecond), set.URI())
	defer func() {
		dctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := set.Down(dctx); err != nil {
			fmt.Fprintf(r.Log, "stopping %d members: %v\n", g.Nodes, err)
		}
	}()
	var errs []error
	for run := 0; run < cfg.Runs; run++ {
		for _, w := range cfg.W {
			c := cells[Key{g.LatencyUs, g.Nodes, w, g.Mode}]
			*done++
			rr, err := r.runOnce(ctx, cfg, set, w, run)
			if err != nil {
				err = fmt.Errorf("%v run %d: %w", c.Key, run+1, err)
				c.Error = joinMsg(c.Error, err.Error())
				errs = append(errs, err)
			}
			if rr != nil {
				c.Runs = append(c.Runs, *rr)
			}
			fmt.Fprintf(r.Log, "[%d/%d] %v run %d: %s\n", *done, total, c.Key, run+1, runLine(rr, err))
		}
	}
	return errors.Join(errs...)
}

// runOnce quiesces the set, then loads with write concern w while polling.
func (r *Runner) runOnce(ctx context.Context, cfg Config, set Set, w string, run int) (*RunResult, error) {
	rr := &RunResult{Run: run + 1, Seed: cfg.Seed + uint64(run)}
	waited, qerr := quiesce(ctx, set, cfg.QuiesceTimeout, 100*time.Millisecond)
	if cfg.Warmup > 0 {
		if err := r.warmup(ctx, cfg, set, w, rr.Seed); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
		more, err := quiesce(ctx, set, cfg.QuiesceTimeout, 100*time.Millisecond)
		waited += more
		qerr = errors.Join(qerr, err)
	}
	rr.QuiesceMs = waited.Milliseconds()
	if qerr != nil {
		rr.QuiesceError = qerr.Error()
	}
	rctx, cancel := context.WithTimeout(ctx, r.RunTimeout)
	defer cancel()
	p := startPoller(rctx, set, cfg.PollInterval)
	res, err := r.Phase(rctx, bench.PhaseConfig{Phase: bench.PhaseLoad, Props: loadProps(cfg, set.URI(), w),
		Drop: true, Seed: rr.Seed})
	pctx, pcancel := context.WithTimeout(ctx, 10*time.Second)
	defer pcancel()
	rr.Lag = p.stop(pctx, set)
	rr.MaxLagSecs = rr.Lag.MaxLagSecs
	if res == nil {
		return nil, err
	}
	rr.FromBench(res)
	if err != nil {
		rr.Error = err.Error()
	} else if rr.Operations != cfg.RecordCount {
		err = fmt.Errorf("%d of %d inserts done", rr.Operations, cfg.RecordCount)
		rr.Error = err.Error()
	}
	return rr, err
}

// DefaultWarmup outlasts the primary's hold on a write-concern demand
// (2 s in chainingMode "auto") plus the window that detects it.
const DefaultWarmup = 4 * time.Second

// warmup loads table "warmup" with w for cfg.Warmup.
func (r *Runner) warmup(ctx context.Context, cfg Config, set Set, w string, seed uint64) error {
	props := loadProps(cfg, set.URI(), w)
	props["table"] = "warmup"
	props["recordcount"] = "100000000"
	props["maxexecutiontime"] = strconv.FormatInt(int64((cfg.Warmup+time.Second-1)/time.Second), 10)
	wctx, cancel := context.WithTimeout(ctx, cfg.Warmup+r.RunTimeout)
	defer cancel()
	_, err := r.Phase(wctx, bench.PhaseConfig{Phase: bench.PhaseLoad, Props: props, Drop: true, Seed: seed})
	return err
}

// loadProps are the YCSB properties of one load: CoreWorkload defaults
// (10 fields of 100 bytes) with recordcount, threads and the URI with w.
func loadProps(cfg Config, uri, w string) bench.Properties {
	return bench.Properties{
		"mongodb.url": WithW(uri, w),
		"recordcount": strconv.FormatInt(cfg.RecordCount, 10),
		"threadcount": strconv.Itoa(cfg.Threads),
	}
}

// WithW adds the write concern to a mongodb:// URI.
func WithW(uri, w string) string {
	if strings.Contains(uri, "?") {
		return uri + "&w=" + w
	}
	if !strings.HasSuffix(uri, "/") && strings.Count(uri, "/") < 3 {
		uri += "/"
	}
	return uri + "?w=" + w
}

func runLine(rr *RunResult, err error) string {
	if rr == nil {
		return "failed: " + err.Error()
	}
	s := fmt.Sprintf("%.0f ops/s, avg %.0f µs, p99 %.0f µs, primary CPU %.0f%% (%.0f core-µs/op), max lag %.0f s, tree %q",
		rr.Throughput, rr.AvgInsertUs, rr.P99InsertUs, rr.PrimaryCPU, rr.CPUPerOpUs, rr.MaxLagSecs, mostSeen(rr.Lag.Trees))
	if err != nil {
		s += "; error: " + err.Error()
	}
	return s
}

func joinMsg(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

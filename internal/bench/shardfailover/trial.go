package shardfailover

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/relaydb/relaydb/internal/bench"
	"github.com/relaydb/relaydb/internal/bench/failover"
	"github.com/relaydb/relaydb/internal/cluster"
)

// runTrials runs workload A in the background and the trials against it,
// killing the primary of shard (i-1) mod Shards in trial i.
func runTrials(ctx context.Context, sc *cluster.Sharded, rec *recorder, cfg Config, mode string, m *ModeReport, progress io.Writer) error {
	w, _, err := workload(cfg)
	if err != nil {
		return err
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	type outcome struct {
		res *bench.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		opts := bench.Options{Phase: bench.PhaseRun, Threads: cfg.Threads, Seed: cfg.Seed + 1}
		res, err := bench.Run(runCtx, w, opts, rec.newDB, nil)
		done <- outcome{res, err}
	}()
	var errs []error
	for i := 1; i <= cfg.Trials && ctx.Err() == nil; i++ {
		tr := runTrial(ctx, sc, rec, cfg, mode, i, (i-1)%len(sc.Shards))
		m.Trials = append(m.Trials, tr)
		fmt.Fprintln(progress, mode+": "+trialLine(tr))
		if tr.Err != "" {
			errs = append(errs, fmt.Errorf("trial %d: %s", i, tr.Err))
		}
		if tr.RejoinErr != "" {
			errs = append(errs, fmt.Errorf("trial %d: %s", i, tr.RejoinErr))
		}
		if tr.RejoinErr != "" || (tr.Err != "" && mode == ModeSingle) {
			break // a shard may be down a member: later trials would measure something else
		}
	}
	stop()
	out := <-done // every operation is bounded by OpTimeout
	if out.res != nil {
		m.Operations, m.Throughput = out.res.Operations, out.res.Throughput
	}
	rec.log.mu.Lock()
	m.Dropped = rec.log.dropped
	rec.log.mu.Unlock()
	if out.err != nil && !errors.Is(out.err, context.Canceled) {
		errs = append(errs, fmt.Errorf("workload A: %w", out.err))
	}
	return errors.Join(errs...)
}

// runTrial kills shard idx's primary and measures until the clients
// succeed on that shard again; then a replica-set shard gets its member
// back. Errors are recorded in the Trial.
func runTrial(parent context.Context, sc *cluster.Sharded, rec *recorder, cfg Config, mode string, n, idx int) Trial {
	set := sc.Shards[idx]
	tr := Trial{N: n, Shard: set.Spec().Name}
	ctx, cancel := context.WithTimeout(parent, cfg.TrialTimeout)
	defer cancel()
	old, kill, err := failover.KillPrimary(ctx, set, cfg.Settle)
	if old != nil {
		tr.Killed = old.Name
	}
	if err != nil {
		tr.Err = err.Error()
		return tr
	}
	from := kill.Add(-cfg.Settle)
	if err := primaryAgain(ctx, set, old, mode, cfg, &tr); err != nil {
		tr.Err = err.Error()
	}
	tr.PrimaryMs = ms(time.Since(kill))
	if err := failover.WaitUntil(ctx, func() bool { return rec.log.okSince(int16(idx), kill) }); err != nil && tr.Err == "" {
		tr.Err = "the clients did not recover on " + tr.Shard + ": " + err.Error()
	}
	_ = failover.SleepCtx(ctx, cfg.Tail)
	to := time.Now()
	ops, classes, _ := rec.log.snapshot(from, to)
	tr.setFigures(measure(ops, classes, int16(idx), kill, from, to, cfg.StallFactor, cfg.MinStall))
	if mode == ModeReplicaSet {
		// even after a failed trial: the next one needs the whole set
		rctx, rcancel := context.WithTimeout(parent, cfg.TrialTimeout)
		defer rcancel()
		tr.RejoinMs, err = rejoin(rctx, set, old)
		if err != nil {
			tr.RejoinErr = err.Error()
		}
	}
	return tr
}

// primaryAgain waits for a writable primary after the kill: a replica-set
// shard elects one; a single-member shard is restarted after
// RestartAfter and must become primary again.
func primaryAgain(ctx context.Context, set *cluster.Cluster, old *cluster.Member, mode string, cfg Config, tr *Trial) error {
	if mode == ModeSingle {
		if err := failover.SleepCtx(ctx, cfg.RestartAfter); err != nil {
			return err
		}
		start := time.Now()
		attempts, err := restart(ctx, set, old.Name)
		tr.RestartAttempts = attempts
		if err != nil {
			return err
		}
		tr.RestartMs = ms(time.Since(start))
	}
	var p *cluster.Member
	err := failover.WaitUntil(ctx, func() bool {
		m, err := set.Primary(ctx)
		if err == nil && (mode == ModeSingle || m != old) {
			p = m
			return true
		}
		return false
	})
	if err != nil {
		return fmt.Errorf("no primary of %s after killing %s: %w", set.Spec().Name, old.Name, err)
	}
	tr.NewPrimary = p.Name
	return nil
}

// restartAttempts bounds restart's tries.
const restartAttempts = 10

// restart starts the killed member again. It retries: before d6614f0
// cluster.Kill returned once the process's main thread was gone while
// its other threads still held the dbpath lock, so a restart right after
// a kill could exit at once with "dbpath is locked"; cluster.Kill now
// waits for every thread, and the retry stays as a guard.
func restart(ctx context.Context, set *cluster.Cluster, name string) (attempts int, err error) {
	for attempts = 1; attempts <= restartAttempts; attempts++ {
		if _, err = set.Restart(ctx, name); err == nil || ctx.Err() != nil {
			break
		}
		_ = failover.SleepCtx(ctx, 200*time.Millisecond)
	}
	if err != nil {
		return attempts, fmt.Errorf("restart %s (%d attempts): %w", name, attempts, err)
	}
	return attempts, nil
}

// rejoin restarts old and waits until its hello reports secondary.
func rejoin(ctx context.Context, set *cluster.Cluster, old *cluster.Member) (float64, error) {
	start := time.Now()
	if _, err := restart(ctx, set, old.Name); err != nil {
		return 0, err
	}
	err := failover.WaitUntil(ctx, func() bool {
		h, err := set.Hello(ctx, old)
		return err == nil && h.Secondary
	})
	if err != nil {
		return 0, fmt.Errorf("%s did not rejoin as SECONDARY: %w", old.Name, err)
	}
	return ms(time.Since(start)), nil
}

func trialLine(t Trial) string {
	s := fmt.Sprintf("trial %d: kill -9 %s/%s -> primary %s after %.0f ms; interruption %.0f ms, gap %.0f ms "+
		"(other shards %.0f ms); %d failed / %d stalled ops (stall > %.0f ms)", t.N, t.Shard, t.Killed, t.NewPrimary,
		t.PrimaryMs, t.InterruptionMs, t.GapMs, t.OtherGapMs, t.Failed, t.Stalled, t.StallThresholdMs)
	if t.RejoinMs > 0 {
		s += fmt.Sprintf("; rejoined in %.0f ms", t.RejoinMs)
	}
	if t.RejoinErr != "" {
		s += "; NO REJOIN: " + t.RejoinErr
	}
	if t.Err != "" {
		s += "; ERROR: " + t.Err
	}
	return s
}

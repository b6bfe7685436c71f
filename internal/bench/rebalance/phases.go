package rebalance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/relaydb/relaydb/internal/bench"
	"github.com/relaydb/relaydb/internal/cluster"
)

// phases runs the throttled workload through before, during (add
// shards, wait until balanced) and after, then measures r's phases and
// migrations.
func phases(ctx context.Context, cfg Config, sc *cluster.Sharded, router *mongo.Client, pools []*bench.Mongo, add int, r *Run, log io.Writer) error {
	w, err := props(cfg)
	if err != nil {
		return err
	}
	rec := &recorder{t0: time.Now(), pools: pools}
	r.T0 = rec.t0
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() {
		_, err := bench.Run(runCtx, w, bench.Options{Phase: bench.PhaseRun, Threads: cfg.Threads, Target: r.TargetOpsSec,
			Seed: cfg.Seed + 2}, rec.newDB, nil)
		done <- err
	}()
	since := func() time.Duration { return time.Since(rec.t0) }
	err = timeline(ctx, cfg, sc, router, add, rec.t0, r, since, log)
	stop()
	if werr := <-done; werr != nil && !errors.Is(werr, context.Canceled) {
		err = errors.Join(err, fmt.Errorf("workload: %w", werr))
	}
	ops, dropped := rec.ops()
	if dropped > 0 {
		err = errors.Join(err, fmt.Errorf("%d operations not recorded (more than %d per worker)", dropped, maxOpsPerWorker))
	}
	end := since()
	var phs []Phase
	for _, p := range r.Phases {
		phs = append(phs, p.Phase)
	}
	r.Phases = Summarize(ops, phs)
	rd, up := Timeline(ops, end, time.Second)
	r.Timeline = Timeline1s{Read: rd, Update: up}
	ms, merr := migrations(sc)
	if merr != nil {
		fmt.Fprintf(log, "  reading the donors' logs: %v\n", merr)
	}
	r.Migrations = ms
	if d := r.Stats(PhaseDuring).Phase; d.End > 0 {
		r.Moves = SummarizeMoves(ms, rec.t0.Add(d.Start), rec.t0.Add(d.End))
		if mv := r.Moves; mv.Count > 0 {
			r.Migrating = Summarize(ops, []Phase{NewPhase("migrating", mv.ActiveFrom.Sub(rec.t0), mv.ActiveTo.Sub(rec.t0))})[0]
		}
		for _, m := range ms {
			if !m.End.Before(rec.t0.Add(d.End)) {
				r.MovesAfter++
			}
		}
	}
	return err
}

// timeline sleeps through before, adds the shards and waits for the
// balancer, waits Quiet, sleeps through after; r.Phases gets the
// windows (statistics come later).
func timeline(ctx context.Context, cfg Config, sc *cluster.Sharded, router *mongo.Client, add int, t0 time.Time, r *Run,
	since func() time.Duration, log io.Writer) error {
	if err := sleep(ctx, cfg.Before); err != nil {
		return err
	}
	bEnd := since()
	r.Phases = append(r.Phases, PhaseStats{Phase: NewPhase(PhaseBefore, 0, bEnd)})
	addStart := time.Now()
	for i := 0; i < add; i++ {
		c, err := sc.AddShard(ctx, 0, nil)
		if err != nil {
			return fmt.Errorf("add shard %d of %d: %w", i+1, add, err)
		}
		fmt.Fprintf(log, "  %.1fs: added shard %s\n", since().Seconds(), c.Spec().Name)
	}
	r.AddSecs = time.Since(addStart).Seconds()
	end, timedOut, err := waitBalanced(ctx, router, cfg.Quiet, cfg.MaxDuring)
	r.TimedOut = timedOut
	dEnd := end.Sub(t0)
	r.Phases = append(r.Phases, PhaseStats{Phase: NewPhase(PhaseDuring, bEnd, dEnd)})
	if err != nil && !timedOut {
		return fmt.Errorf("waiting for the balancer: %w", err)
	}
	fmt.Fprintf(log, "  %.1fs: balanced (during %.1fs%s)\n", dEnd.Seconds(), (dEnd - bEnd).Seconds(), map[bool]string{true: ", TIMED OUT"}[timedOut])
	aStart := since()
	if err := sleep(ctx, cfg.After); err != nil {
		return err
	}
	r.Phases = append(r.Phases, PhaseStats{Phase: NewPhase(PhaseAfter, aStart, since())})
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

package crashtest

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Config is one crash-test run. Zero values mean the default on each field.
type Config struct {
	Seed   uint64 // op sequence and kill points; required (print it)
	Trials int    // kill/restart trials; default 6
	MaxOps int    // bound on acknowledged ops before the kill point; default 24
	Bin    string // relaydb binary, for tool verify; required
	// Converge bounds the wait for other members to reach the primary's
	// state; default 30 s.
	Converge time.Duration
	// KeepGoing runs every trial even after a check failed (the failures
	// are all returned); otherwise Run stops at the first.
	KeepGoing bool
	Logf      func(format string, args ...any) // default: discard
}

func (c *Config) ensureDefaults() {
	if c.Trials == 0 {
		c.Trials = 6
	}
	if c.MaxOps == 0 {
		c.MaxOps = 24
	}
	if c.Converge == 0 {
		c.Converge = 30 * time.Second
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
}

// Kill modes: where in the op sequence the kill lands.
const (
	KillAfterAck   = "after-ack"   // right after an acknowledgement, nothing in flight
	KillDuringNext = "during-next" // 0-1 ms into the next op
	KillTimer      = "timer"       // 20-800 ms into the trial, ops running back to back
)

// killModes are used in turn, so that even a 2-trial run has a kill right
// after an acknowledged DDL op.
var killModes = []string{KillAfterAck, KillDuringNext, KillTimer}

// maxTimerOps bounds the ops of a timer trial (the kill ends it sooner).
const maxTimerOps = 2000

// Result counts a run.
type Result struct {
	Topology string
	Trials   int
	Stream   *Stream
	Modes    map[string]int
	Failures []error
}

// Run runs cfg.Trials kill/restart trials against t. It returns the counts
// and the first failure (all of them with KeepGoing, joined).
func Run(ctx context.Context, t Target, cfg Config) (*Result, error) {
	cfg.ensureDefaults()
	gen := NewGenerator(cfg.Seed)
	res := &Result{Topology: t.Name(), Stream: NewStream(gen, t.WriteConcern()), Modes: map[string]int{}}
	for i := range cfg.Trials {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		err := trial(ctx, t, cfg, res, i)
		res.Trials++
		if err != nil {
			err = fmt.Errorf("%s trial %d (seed %d): %w", t.Name(), i, cfg.Seed, err)
			res.Failures = append(res.Failures, err)
			cfg.Logf("FAIL %v", err)
			if !cfg.KeepGoing || !errors.Is(err, errLost) {
				break
			}
		}
	}
	return res, errors.Join(res.Failures...)
}

// errLost marks a check failure (as opposed to a harness or startup error).
var errLost = errors.New("acknowledged op lost")

// trial runs ops until the kill, verifies the data offline, restarts and
// checks the model.
func trial(ctx context.Context, t Target, cfg Config, res *Result, i int) error {
	s := res.Stream
	s.ResetHistory()
	r := s.gen.Rand()
	mode := killModes[i%len(killModes)]
	n := 1 + r.IntN(cfg.MaxOps)
	res.Modes[mode]++
	acked0, t0 := s.TotalAcked(), time.Now()
	if err := runToKill(ctx, t, s, mode, n, r.IntN(1000), 20+r.IntN(780)); err != nil {
		return err
	}
	t1, inflight := time.Now(), s.InFlight()
	for _, dir := range t.DBPaths() {
		if err := Verify(ctx, cfg.Bin, dir); err != nil {
			return err
		}
	}
	t2 := time.Now()
	if err := t.RestartAll(ctx); err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	t3 := time.Now()
	err := checkTarget(ctx, t, s, cfg.Converge)
	cfg.Logf("%s trial %d: %s kill after %d acked ops (in flight: %v); ops %v, verify %v, restart %v, check %v",
		t.Name(), i, mode, s.TotalAcked()-acked0, inflight, ms(t1.Sub(t0)), ms(t2.Sub(t1)), ms(t3.Sub(t2)), ms(time.Since(t3)))
	return err
}

func ms(d time.Duration) time.Duration { return d.Round(time.Millisecond) }

// runToKill connects, runs the ops of mode and kills t.
func runToKill(ctx context.Context, t Target, s *Stream, mode string, n, delayMicros, timerMillis int) error {
	cl, err := Connect(t.URI())
	if err != nil {
		return err
	}
	defer disconnect(cl)
	var killed atomic.Bool
	kill := func() error { killed.Store(true); return t.KillAll(ctx) }
	if mode == KillTimer {
		return runTimer(ctx, s, cl, &killed, kill, time.Duration(timerMillis)*time.Millisecond)
	}
	// After an ack the last op is always DDL; during the next op, half the
	// time (the other half ends on CRUD).
	ddlLast := mode == KillAfterAck || s.gen.Rand().IntN(2) == 0
	for i := range n {
		step := s.Step
		if i == n-1 && ddlLast {
			step = s.StepDDL
		}
		if err := step(ctx, cl, killed.Load); err != nil {
			_ = kill()
			return err
		}
	}
	if mode == KillAfterAck {
		return kill()
	}
	done := make(chan error, 1)
	go func() {
		time.Sleep(time.Duration(delayMicros) * time.Microsecond)
		done <- kill()
	}()
	err = s.Step(ctx, cl, killed.Load)
	kerr := <-done
	if err != nil && !errors.Is(err, ErrKilled) {
		return err
	}
	return kerr
}

// runTimer runs ops back to back until the timer's kill interrupts one.
func runTimer(ctx context.Context, s *Stream, cl *mongo.Client, killed *atomic.Bool, kill func() error, after time.Duration) error {
	done := make(chan error, 1)
	timer := time.AfterFunc(after, func() { done <- kill() })
	var err error
	for range maxTimerOps {
		if err = s.Step(ctx, cl, killed.Load); err != nil {
			break
		}
	}
	if err != nil && !errors.Is(err, ErrKilled) {
		if timer.Stop() {
			_ = kill()
			return err
		}
		<-done
		return err
	}
	return <-done
}

// checkTarget checks the model on the first check URI and that the others
// converge to the same state.
func checkTarget(ctx context.Context, t Target, s *Stream, converge time.Duration) error {
	uris, err := t.CheckURIs(ctx)
	if err != nil {
		return err
	}
	got, err := observeURI(ctx, uris[0])
	if err != nil {
		return fmt.Errorf("observe after restart: %w", err)
	}
	if err := s.Check(got); err != nil {
		return fmt.Errorf("%w: %w", errLost, err)
	}
	for _, uri := range uris[1:] {
		if err := WaitConverged(ctx, uri, got, converge); err != nil {
			return err
		}
	}
	return nil
}

func observeURI(ctx context.Context, uri string) (State, error) {
	cl, err := Connect(uri)
	if err != nil {
		return nil, err
	}
	defer disconnect(cl)
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	return Observe(ctx, cl)
}

// WaitConverged polls uri until it shows want, or d passes.
func WaitConverged(ctx context.Context, uri string, want State, d time.Duration) error {
	deadline := time.Now().Add(d)
	var diff []string
	for time.Now().Before(deadline) {
		got, err := observeURI(ctx, uri)
		if err == nil {
			if diff = Diff(want, got, 10); diff == nil {
				return nil
			}
		} else {
			diff = []string{err.Error()}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return fmt.Errorf("%w: %s did not converge to the primary within %v: %v", errLost, uri, d, diff)
}

// disconnect closes cl without waiting long for a killed server (the
// driver's endSessions would wait for server selection).
func disconnect(cl *mongo.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_ = cl.Disconnect(ctx)
}

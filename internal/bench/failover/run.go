package failover

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/relaydb/relaydb/internal/bench/experiment"
	"github.com/relaydb/relaydb/internal/cluster"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// pollInterval is how often elections, recovery and rejoin are polled.
const pollInterval = 10 * time.Millisecond

// Trial is one kill -9 failover.
type Trial struct {
	N            int     `json:"n"`
	Killed       string  `json:"killed"`
	NewPrimary   string  `json:"newPrimary"`
	ElectionMs   float64 `json:"electionMs"`   // kill to a survivor's replSetGetStatus showing a new PRIMARY
	WriteGapMs   float64 `json:"writeGapMs"`   // longest gap between consecutive write acks around the kill
	FailToOKMs   float64 `json:"failToOkMs"`   // first failed/stalled write to the next ack (0 = none)
	ReadGapMs    float64 `json:"readGapMs"`    // longest gap between consecutive read acks around the kill
	FailedWrites int     `json:"failedWrites"` // writes that returned an error (after the driver's retry)
	Stalled      int     `json:"stalledWrites"`
	FailedReads  int     `json:"failedReads"`
	RejoinMs     float64 `json:"rejoinMs"`              // restart to the killed member SECONDARY and caught up
	RejoinErr    string  `json:"rejoinError,omitempty"` // the killed member did not rejoin; the next trial gets a fresh set
	Err          string  `json:"error,omitempty"`       // the failover itself failed
}

// Execute runs cfg: a fresh set, the trials, the lag run. It returns the
// report built so far along with any error.
func Execute(ctx context.Context, cfg Config, progress io.Writer) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	dir, done, err := experiment.WorkDir(cfg.Dir, "relaydb-bench-failover-", false)
	if err != nil {
		return nil, fmt.Errorf("failover: %w", err)
	}
	defer done()
	r := newReport(cfg)
	s := &sets{cfg: cfg, dir: dir, progress: progress}
	defer s.down()
	err = runTrials(ctx, s, cfg, r, progress)
	if cfg.LagDuration > 0 && ctx.Err() == nil {
		lag, lerr := runLagFresh(ctx, s, cfg, progress)
		r.Lag = lag
		err = errors.Join(err, lerr)
	}
	r.Sets = s.n
	r.finish()
	return r, err
}

func runTrials(ctx context.Context, s *sets, cfg Config, r *Report, progress io.Writer) error {
	var errs []error
	for i := 1; i <= cfg.Trials && ctx.Err() == nil; i++ {
		c, l, err := s.current(ctx)
		if err != nil {
			return errors.Join(append(errs, err)...)
		}
		tr := runTrial(ctx, c, l, cfg, i)
		r.Trials = append(r.Trials, tr)
		fmt.Fprintln(progress, trialLine(tr))
		if tr.Err != "" {
			errs = append(errs, fmt.Errorf("trial %d: %s", i, tr.Err))
		}
		if tr.Err != "" || tr.RejoinErr != "" {
			s.down() // the next trial starts from a healthy, fresh set
		}
	}
	return errors.Join(errs...)
}

// runTrial kills the primary, measures, restarts it and waits for it to
// rejoin. Errors are recorded in the Trial.
func runTrial(ctx context.Context, c *cluster.Cluster, l *load, cfg Config, n int) Trial {
	tr := Trial{N: n}
	ctx, cancel := context.WithTimeout(ctx, cfg.TrialTimeout)
	defer cancel()
	old, kill, err := KillPrimary(ctx, c, cfg.Settle)
	if old != nil {
		tr.Killed = old.Name
	}
	if err != nil {
		tr.Err = err.Error()
		return tr
	}
	from := kill.Add(-cfg.Settle / 2)
	if tr.NewPrimary, err = waitElection(ctx, c, old); err != nil {
		tr.Err = err.Error()
		return tr
	}
	tr.ElectionMs = ms(time.Since(kill))
	if err := waitUntil(ctx, func() bool { return l.writes.ackedSince(kill) && l.reads.ackedSince(kill) }); err != nil {
		tr.Err = "the client did not recover: " + err.Error()
	}
	_ = sleepCtx(ctx, time.Second) // let a stalled second writer show in the window
	measure(&tr, l, kill, from, time.Now())
	if tr.Err == "" {
		tr.RejoinMs, err = rejoin(ctx, c, old)
		if err != nil {
			tr.RejoinErr = err.Error()
		}
	}
	return tr
}

// measure fills tr's client-side figures from the logs of [from, to].
func measure(tr *Trial, l *load, kill, from, to time.Time) {
	acks, fails, stalls := l.writes.snapshot()
	w := window(acks, fails, stalls, kill, from, to)
	tr.WriteGapMs, tr.FailToOKMs = ms(w.MaxGap), ms(w.FailToOK)
	tr.FailedWrites, tr.Stalled = w.Failed, w.Stalled
	racks, rfails, rstalls := l.reads.snapshot()
	rw := window(racks, rfails, rstalls, kill, from, to)
	tr.ReadGapMs, tr.FailedReads = ms(rw.MaxGap), rw.Failed
}

// waitElection polls the survivors' replSetGetStatus until one shows a
// PRIMARY other than old, and returns its name.
func waitElection(ctx context.Context, c *cluster.Cluster, old *cluster.Member) (string, error) {
	var host string
	err := waitUntil(ctx, func() bool {
		for _, m := range c.Members() {
			if m == old {
				continue
			}
			if h := statusPrimary(ctx, c, m); h != "" && h != old.Host {
				host = nameOf(c, h)
				return true
			}
		}
		return false
	})
	if err != nil {
		return "", fmt.Errorf("no new primary after killing %s: %w", old.Name, err)
	}
	return host, nil
}

// statusPrimary is the host m's replSetGetStatus shows as PRIMARY, or "".
func statusPrimary(ctx context.Context, c *cluster.Cluster, m *cluster.Member) string {
	var rs struct {
		Members []struct {
			Name     string `bson:"name"`
			StateStr string `bson:"stateStr"`
		} `bson:"members"`
	}
	if err := c.RunAdmin(ctx, m, bson.D{{Key: "replSetGetStatus", Value: 1}}, &rs); err != nil {
		return ""
	}
	for _, x := range rs.Members {
		if x.StateStr == "PRIMARY" {
			return x.Name
		}
	}
	return ""
}

// nameOf is the name of the member at host, or host itself.
func nameOf(c *cluster.Cluster, host string) string {
	for _, m := range c.Members() {
		if m.Host == host {
			return m.Name
		}
	}
	return host
}

// rejoin restarts old and waits until its hello reports secondary.
func rejoin(ctx context.Context, c *cluster.Cluster, old *cluster.Member) (float64, error) {
	start := time.Now()
	if _, err := c.Restart(ctx, old.Name); err != nil {
		return 0, fmt.Errorf("restart %s: %w", old.Name, err)
	}
	err := waitUntil(ctx, func() bool {
		h, err := c.Hello(ctx, old)
		return err == nil && h.Secondary
	})
	if err != nil {
		return 0, fmt.Errorf("%s did not rejoin as SECONDARY: %w", old.Name, err)
	}
	if err := waitCaughtUp(ctx, c, old); err != nil {
		return 0, err
	}
	return ms(time.Since(start)), nil
}

// waitUntil polls f every pollInterval until it is true or ctx is done.
func waitUntil(ctx context.Context, f func() bool) error {
	for !f() {
		if err := sleepCtx(ctx, pollInterval); err != nil {
			return err
		}
	}
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

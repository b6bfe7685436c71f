package experiment

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// LagSummary is what the replSetGetStatus polls of one run saw.
type LagSummary struct {
	Samples    int            `json:"samples"` // polls answered with a primary
	Errors     int            `json:"errors"`  // polls that failed or saw no primary
	LastError  string         `json:"lastError,omitempty"`
	Behind     int            `json:"behindSamples"`   // polls with some member behind the primary
	MaxLagSecs float64        `json:"maxLagSecs"`      // max of Lag over the polls
	Trees      map[string]int `json:"syncSourceTrees"` // polls per rendered tree
	ByDepth    []DepthLag     `json:"lagByDepth"`      // acknowledgement lag by sync-source depth
	depth      depthAcc
}

// observe folds one poll into l.
func (l *LagSummary) observe(st ReplStatus, err error) {
	if l.Trees == nil {
		l.Trees = map[string]int{}
	}
	if err != nil {
		l.Errors++
		l.LastError = err.Error()
		return
	}
	secs, behind, ok := Lag(st)
	if !ok {
		l.Errors++
		l.LastError = "no member reports PRIMARY"
		return
	}
	l.Samples++
	if behind {
		l.Behind++
	}
	l.MaxLagSecs = max(l.MaxLagSecs, secs)
	l.Trees[Tree(st)]++
	if l.depth == nil {
		l.depth = depthAcc{}
	}
	l.depth.observe(st)
	l.ByDepth = l.depth.list()
}

// poller polls a set's status every interval until stopped.
type poller struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	sum    LagSummary // REQUIRES: mu
}

// startPoller polls s once at once and then every interval.
func startPoller(ctx context.Context, s Set, interval time.Duration) *poller {
	ctx, cancel := context.WithCancel(ctx)
	p := &poller{cancel: cancel}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			st, err := s.ReplStatus(ctx)
			if ctx.Err() != nil {
				return
			}
			p.mu.Lock()
			p.sum.observe(st, err)
			p.mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return p
}

// stop ends the polling, takes one last sample and returns the summary.
func (p *poller) stop(ctx context.Context, s Set) LagSummary {
	p.cancel()
	p.wg.Wait()
	st, err := s.ReplStatus(ctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sum.observe(st, err)
	return p.sum
}

// quiesce waits until the set is settled (see settled), or d passes.
func quiesce(ctx context.Context, s Set, d time.Duration, every time.Duration) (time.Duration, error) {
	start := time.Now()
	deadline := start.Add(d)
	var last error
	for {
		st, err := s.ReplStatus(ctx)
		if last = err; err == nil {
			if last = settled(st); last == nil {
				return time.Since(start), nil
			}
		}
		if time.Now().After(deadline) {
			return time.Since(start), fmt.Errorf("not settled after %v: %w", d, last)
		}
		select {
		case <-ctx.Done():
			return time.Since(start), ctx.Err()
		case <-time.After(every):
		}
	}
}

// settled is nil when a primary reports, no member is behind it and
// every other data member has a sync source in the primary's view (it
// learns them from heartbeats, so just after start-up they are missing).
func settled(st ReplStatus) error {
	_, behind, ok := Lag(st)
	switch {
	case !ok:
		return fmt.Errorf("no member reports PRIMARY")
	case behind:
		return fmt.Errorf("members still behind the primary: %s", behindList(st))
	}
	for _, m := range st.Members {
		if m.State != "PRIMARY" && m.State != "ARBITER" && m.SyncSource == "" {
			return fmt.Errorf("%s (%s) has no sync source yet", m.Name, m.State)
		}
	}
	return nil
}

// behindList names the members whose optime is before the primary's.
func behindList(st ReplStatus) string {
	var p MemberState
	for _, m := range st.Members {
		if m.State == "PRIMARY" {
			p = m
		}
	}
	out := ""
	for _, m := range st.Members {
		if m.State != "PRIMARY" && m.State != "ARBITER" && m.Optime.Compare(p.Optime) < 0 {
			if out != "" {
				out += ", "
			}
			out += fmt.Sprintf("%s (%s, optime %d.%d)", m.Name, m.State, m.Optime.T, m.Optime.I)
		}
	}
	return out
}

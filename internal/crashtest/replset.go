package crashtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/relaydb/relaydb/internal/cluster"
)

// settleTimeout bounds the wait for a primary and settled members after a
// restart of every member.
const settleTimeout = 60 * time.Second

// ReplSet is a Target over a local replica set of internal/cluster,
// written with {w: "majority", j: true}.
type ReplSet struct {
	C *cluster.Cluster
}

func (r *ReplSet) Name() string               { return fmt.Sprintf("replset-%d", len(r.C.Members())) }
func (r *ReplSet) URI() string                { return r.C.URI() }
func (r *ReplSet) WriteConcern() WriteConcern { return Majority }

// KillAll kills every member at once (one goroutine each).
func (r *ReplSet) KillAll(ctx context.Context) error {
	return r.each(func(m *cluster.Member) error {
		_, err := r.C.Kill(ctx, m.Name)
		return err
	})
}

// RestartAll restarts every member, then waits for a primary and for
// every member to be PRIMARY or SECONDARY.
func (r *ReplSet) RestartAll(ctx context.Context) error {
	err := r.each(func(m *cluster.Member) error {
		_, err := r.C.Restart(ctx, m.Name)
		return err
	})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, settleTimeout)
	defer cancel()
	if _, err := r.C.WaitPrimary(ctx); err != nil {
		return err
	}
	return WaitSettled(ctx, r.C)
}

func (r *ReplSet) each(f func(m *cluster.Member) error) error {
	var wg sync.WaitGroup
	errs := make([]error, len(r.C.Members()))
	for i, m := range r.C.Members() {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = f(m) }()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// DBPaths are the members' data directories.
func (r *ReplSet) DBPaths() []string {
	var out []string
	for _, m := range r.C.Members() {
		out = append(out, m.DBPath)
	}
	return out
}

// PIDs are the members' process ids.
func (r *ReplSet) PIDs() []int {
	var out []int
	for _, m := range r.C.Members() {
		if r.C.Alive(m) {
			out = append(out, m.PID)
		}
	}
	return out
}

// CheckURIs: the primary, then every other member, by direct connection.
func (r *ReplSet) CheckURIs(ctx context.Context) ([]string, error) {
	p, err := r.C.Primary(ctx)
	if err != nil {
		return nil, err
	}
	uris := []string{direct(p.Host)}
	for _, m := range r.C.Members() {
		if m != p {
			uris = append(uris, direct(m.Host))
		}
	}
	return uris, nil
}

func direct(host string) string { return "mongodb://" + host + "/?directConnection=true" }

// WaitSettled waits until every member reports PRIMARY or SECONDARY (a
// member in STARTUP2 or RECOVERING refuses reads), bounded by ctx.
func WaitSettled(ctx context.Context, c *cluster.Cluster) error {
	for {
		st := c.Status(ctx)
		settled := len(st.Members) == len(c.Members())
		for _, m := range st.Members {
			settled = settled && (m.State == "PRIMARY" || m.State == "SECONDARY")
		}
		if settled {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("crashtest: members not all PRIMARY/SECONDARY: %+v: %w", st.Members, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

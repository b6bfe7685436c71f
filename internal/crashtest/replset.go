package crashtest

import (
	"context"
	"errors"
	"fmt"
	"syscall"
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
func (r *ReplSet) WriteConcern() WriteConcern { return WMajority }

// KillAll sends SIGKILL to every member at once, then waits for each to
// be gone (cluster.Kill, one member at a time: it rewrites cluster.json).
func (r *ReplSet) KillAll(ctx context.Context) error {
	for _, m := range r.C.Members() {
		if r.C.Alive(m) {
			_ = syscall.Kill(m.PID, syscall.SIGKILL)
		}
	}
	var errs []error
	for _, m := range r.C.Members() {
		_, err := r.C.Kill(ctx, m.Name)
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// RestartAll restarts every member, then waits for a primary and for
// every member to be PRIMARY or SECONDARY.
func (r *ReplSet) RestartAll(ctx context.Context) error {
	for _, m := range r.C.Members() {
		if _, err := r.C.Restart(ctx, m.Name); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, settleTimeout)
	defer cancel()
	if _, err := r.C.WaitPrimary(ctx); err != nil {
		return err
	}
	return WaitSettled(ctx, r.C)
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

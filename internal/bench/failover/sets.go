package failover

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/relaydb/relaydb/internal/cluster"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// catchUpBound bounds the wait for a rejoined member to reach the
// primary's optime.
const catchUpBound = 15 * time.Second

// sets owns the replica set of the run and its load. A trial whose killed
// member does not rejoin (e.g. its oplog diverged and it cannot roll
// back) leaves a set that cannot survive another kill with a majority,
// so the next trial gets a fresh set in a new subdirectory.
type sets struct {
	cfg      Config
	dir      string
	progress io.Writer
	n        int // sets started

	c  *cluster.Cluster // nil when none is running
	l  *load
	cl *mongo.Client
}

// current returns the running set and its load, starting them if needed.
func (s *sets) current(ctx context.Context) (*cluster.Cluster, *load, error) {
	if s.c != nil {
		return s.c, s.l, nil
	}
	c, err := s.up(ctx)
	if err != nil {
		return nil, nil, err
	}
	l, cl, err := startLoad(c.URI(), s.cfg.Writers, s.cfg.StallAfter)
	if err != nil {
		_ = c.Down(context.Background())
		return nil, nil, err
	}
	s.c, s.l, s.cl = c, l, cl
	return c, l, nil
}

func (s *sets) up(ctx context.Context) (*cluster.Cluster, error) {
	s.n++
	dir := filepath.Join(s.dir, fmt.Sprintf("set%d", s.n))
	fmt.Fprintf(s.progress, "starting a 3-member set in %s\n", dir)
	c, err := cluster.Up(ctx, cluster.Spec{Dir: dir, Data: 3, Bin: s.cfg.Bin, ExtraArgs: s.cfg.ExtraArgs, DieWithParent: true,
		Auth: s.cfg.Auth, TLS: s.cfg.TLS})
	if err != nil {
		return nil, fmt.Errorf("failover: start a set: %w", err)
	}
	return c, nil
}

// down stops the load and the set, if running.
func (s *sets) down() {
	if s.l != nil {
		s.l.stop()
		_ = s.cl.Disconnect(context.Background())
		s.l, s.cl = nil, nil
	}
	if s.c != nil {
		_ = s.c.Down(context.Background())
		s.c = nil
	}
}

// runLagFresh runs the lag measurement on a fresh set (the trials'
// writers stopped) so it measures steady-state replication.
func runLagFresh(ctx context.Context, s *sets, cfg Config, progress io.Writer) (*LagReport, error) {
	s.down()
	c, err := s.up(ctx)
	if err != nil {
		return nil, err
	}
	s.c = c
	return runLag(ctx, c, cfg, progress)
}

// waitCaughtUp waits until m's applied optime reaches the primary's
// applied optime as sampled once m is SECONDARY.
func waitCaughtUp(ctx context.Context, c *cluster.Cluster, m *cluster.Member) error {
	p, err := c.WaitPrimary(ctx)
	if err != nil {
		return err
	}
	target, err := appliedOpTime(ctx, c, p)
	if err != nil {
		return fmt.Errorf("primary's optime: %w", err)
	}
	cctx, cancel := context.WithTimeout(ctx, catchUpBound)
	defer cancel()
	var last bson.Timestamp
	err = waitUntil(cctx, func() bool {
		last, _ = appliedOpTime(cctx, c, m)
		return !tsAfter(target, last)
	})
	if err != nil {
		return fmt.Errorf("%s is SECONDARY but did not reach the primary's optime %v within %v (at %v; "+
			"a diverged oplog needs rollback): %w", m.Name, target, catchUpBound, last, err)
	}
	return nil
}

func appliedOpTime(ctx context.Context, c *cluster.Cluster, m *cluster.Member) (bson.Timestamp, error) {
	var st selfStatus
	err := c.RunAdmin(ctx, m, bson.D{{Key: "replSetGetStatus", Value: 1}}, &st)
	return st.Optimes.Applied.TS, err
}

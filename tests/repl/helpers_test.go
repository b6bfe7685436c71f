package repl

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// upTimeout bounds starting a set: processes, ping, initiate, a primary.
const upTimeout = 40 * time.Second

var probe struct {
	once   sync.Once
	err    error
	logs   string
	logged sync.Once // the member logs are printed by the first failing test only
}

// requireReplication fails t unless a one-member set can be started,
// initiated and elects itself. The probe runs once per test binary.
func requireReplication(t *testing.T) {
	t.Helper()
	probe.once.Do(func() { probe.logs, probe.err = runProbe() })
	if probe.err != nil {
		probe.logged.Do(func() { t.Logf("probe member log:\n%s", probe.logs) })
		t.Fatalf("replica sets do not work yet: `relaydb serve --replSet rs0` + replSetInitiate "+
			"of a 1-member set did not give a PRIMARY: %v", probe.err)
	}
}

func runProbe() (logs string, err error) {
	bin, err := harness.Binary()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "relaydb-repl-probe-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := cluster.Up(ctx, cluster.Spec{Dir: dir, Data: 1, Bin: bin, DieWithParent: true,
		StartTimeout: 10 * time.Second, PrimaryTimeout: 10 * time.Second})
	if err != nil {
		return logTails(dir, 1), err
	}
	return "", c.Down(context.Background())
}

// upSet starts a replica set for t (after requireReplication) and stops it
// in t.Cleanup, printing member log tails if t failed.
func upSet(t *testing.T, s cluster.Spec) *cluster.Cluster {
	t.Helper()
	requireReplication(t)
	c, err := startSet(s, t.TempDir())
	if err != nil {
		t.Fatalf("start replica set: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("member logs:\n%s", logTails(c.Spec().Dir, len(c.Members())))
		}
		_ = c.Down(context.Background())
	})
	return c
}

func startSet(s cluster.Spec, dir string) (*cluster.Cluster, error) {
	bin, err := harness.Binary()
	if err != nil {
		return nil, err
	}
	s.Dir, s.Bin, s.DieWithParent = dir, bin, true
	if s.PrimaryTimeout == 0 {
		s.PrimaryTimeout = 20 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), upTimeout)
	defer cancel()
	c, err := cluster.Up(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("%w\nmember logs:\n%s", err, logTails(dir, s.Count()))
	}
	if err := waitSteady(ctx, c); err != nil {
		_ = c.Down(context.Background())
		return nil, fmt.Errorf("%w\nmember logs:\n%s", err, logTails(dir, s.Count()))
	}
	return c, nil
}

// waitSteady waits until every member reports a settled state (PRIMARY,
// SECONDARY or ARBITER): a member whose data is empty stays in STARTUP2
// until it has applied the set's first entries, and answers reads with
// NotPrimaryOrSecondary until then, as MongoDB does.
func waitSteady(ctx context.Context, c *cluster.Cluster) error {
	for {
		st := c.Status(ctx)
		steady := len(st.Members) > 0
		for _, m := range st.Members {
			switch m.State {
			case "PRIMARY", "SECONDARY", "ARBITER":
			default:
				steady = false
			}
		}
		if steady {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("members did not all reach PRIMARY/SECONDARY/ARBITER: %+v", st.Members)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

var shared struct {
	once sync.Once
	c    *cluster.Cluster
	err  error
	dir  string
}

// sharedSet is a healthy 3-member set for tests that leave it healthy
// (no kills, no step-downs). TestMain stops it.
func sharedSet(t *testing.T) *cluster.Cluster {
	t.Helper()
	requireReplication(t)
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "relaydb-repl-shared-")
		if shared.err == nil {
			shared.c, shared.err = startSet(cluster.Spec{Data: 3}, shared.dir)
		}
	})
	if shared.err != nil {
		t.Fatalf("start the shared 3-member set: %v", shared.err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("shared set member logs:\n%s", logTails(shared.dir, 3))
		}
	})
	return shared.c
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.c != nil {
		_ = shared.c.Down(context.Background())
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// logTails returns the end of each member's log under dir.
func logTails(dir string, n int) string {
	var out string
	for i := 0; i < n; i++ {
		for _, f := range []string{"relaydb.log", "stderr.log"} {
			p := filepath.Join(dir, fmt.Sprintf("m%d", i), f)
			b, err := os.ReadFile(p)
			if err != nil || len(b) == 0 {
				continue
			}
			if len(b) > 2000 {
				b = b[len(b)-2000:]
			}
			out += fmt.Sprintf("--- %s ---\n%s\n", p, b)
		}
	}
	return out
}

// connectSet returns a client over the set's replicaSet URI, disconnected
// by t.Cleanup.
func connectSet(t *testing.T, c *cluster.Cluster, opts ...*options.ClientOptions) *mongo.Client {
	t.Helper()
	o := options.Client().ApplyURI(c.URI()).SetServerSelectionTimeout(15 * time.Second)
	cl, err := mongo.Connect(append([]*options.ClientOptions{o}, opts...)...)
	if err != nil {
		t.Fatalf("connect %s: %v", c.URI(), err)
	}
	t.Cleanup(func() { _ = cl.Disconnect(context.Background()) })
	return cl
}

// direct returns the cluster's direct client to m.
func direct(t *testing.T, c *cluster.Cluster, m *cluster.Member) *mongo.Client {
	t.Helper()
	cl, err := c.Client(m)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// primary waits (bounded) for the set's primary.
func primary(t *testing.T, c *cluster.Cluster, d time.Duration) *cluster.Member {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	p, err := c.WaitPrimary(ctx)
	if err != nil {
		t.Fatalf("no primary within %v: %v", d, err)
	}
	return p
}

// secondaries lists the data-bearing members other than p.
func secondaries(c *cluster.Cluster, p *cluster.Member) []*cluster.Member {
	var out []*cluster.Member
	for _, m := range c.Members() {
		if m != p && m.Role != cluster.RoleArbiter {
			out = append(out, m)
		}
	}
	return out
}

// eventually polls f every 50 ms until it returns nil or d passes, then
// fails t with f's last error.
func eventually(t *testing.T, d time.Duration, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not true within %v: %v", what, d, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func ctxT(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}

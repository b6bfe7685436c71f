package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/relaydb/relaydb/internal/cluster"
)

// setUpTimeout bounds starting one replica set (processes, initiate,
// every member PRIMARY or SECONDARY).
const setUpTimeout = 40 * time.Second

// StartSets starts the replica sets of specs (one data member unless a
// spec says otherwise) in parallel from the test binary and waits until
// each is steady; all are stopped by t.Cleanup, with their first member's
// log tail when t failed. The sharded-cluster tests build their config
// server and shard sets with it.
func StartSets(t testing.TB, specs []cluster.Spec) []*cluster.Cluster {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		t.Fatal(err)
	}
	sets := make([]*cluster.Cluster, len(specs))
	errs := make([]error, len(specs))
	var wg sync.WaitGroup
	for i, s := range specs {
		if s.Data == 0 {
			s.Data = 1
		}
		s.Bin, s.DieWithParent = bin, true
		s.Dir = filepath.Join(t.TempDir(), s.Name)
		s.PrimaryTimeout = 20 * time.Second
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), setUpTimeout)
			defer cancel()
			if sets[i], errs[i] = cluster.Up(ctx, s); errs[i] == nil {
				errs[i] = waitSteady(ctx, sets[i])
			}
		}()
	}
	wg.Wait()
	for i, c := range sets {
		if c == nil {
			continue
		}
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("%s member log:\n%s", specs[i].Name, LogTail(c))
			}
			_ = c.Down(context.Background())
		})
	}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("start %s: %v", specs[i].Name, err)
		}
	}
	return sets
}

// waitSteady waits until every member is PRIMARY or SECONDARY (a new
// member stays in STARTUP2 until its initial sync is done).
func waitSteady(ctx context.Context, c *cluster.Cluster) error {
	for {
		st := c.Status(ctx)
		steady := len(st.Members) == len(c.Members())
		for _, m := range st.Members {
			steady = steady && (m.State == "PRIMARY" || m.State == "SECONDARY")
		}
		if steady {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: members not all PRIMARY/SECONDARY: %+v", c.Spec().Name, st.Members)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Seed is "setName/host" of a set's first member (addShard's and
// --configdb's form).
func Seed(c *cluster.Cluster) string { return c.Spec().Name + "/" + c.Members()[0].Host }

// LogTail is the last 3000 bytes of a set's first member's log.
func LogTail(c *cluster.Cluster) string {
	b, err := os.ReadFile(c.Members()[0].LogPath)
	if err != nil {
		return err.Error()
	}
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(b)
}

// FirstMemberClient is a direct client to a set's first member, closed
// with the set.
func FirstMemberClient(t testing.TB, c *cluster.Cluster) *mongo.Client {
	t.Helper()
	cl, err := c.Client(c.Members()[0])
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

package sim

import (
	"flag"
	"fmt"
	"testing"
	"time"
)

var (
	seedFlag  = flag.Uint64("seed", 0, "run TestChaos with this seed only")
	seedsFlag = flag.Int("seeds", 3, "number of seeds per size TestChaos runs (seeds 1..N)")
)

// TestChaos runs seeded random schedules on sets of 3, 7 and 15 members
// (the first seven vote), then heals and checks convergence.
func TestChaos(t *testing.T) {
	seeds := []uint64{}
	for s := 1; s <= *seedsFlag; s++ {
		seeds = append(seeds, uint64(s))
	}
	if *seedFlag != 0 {
		seeds = []uint64{*seedFlag}
	}
	for _, n := range []int{3, 7, 15} {
		for _, seed := range seeds {
			t.Run(fmt.Sprintf("n=%d/seed=%d", n, seed), func(t *testing.T) {
				t.Logf("rerun: go test ./internal/sim -run 'TestChaos/n=%d/' -seed=%d -v", n, seed)
				cl := chaos(t, Options{N: n, Seed: seed}, 20*time.Second)
				t.Log(cl.Report())
			})
		}
	}
}

// chaos runs a schedule and the convergence check, failing t on any
// violation, and prints the tail of the event log when it fails.
func chaos(t *testing.T, opts Options, d time.Duration) *Cluster {
	t.Helper()
	cl, err := runChaos(t, opts, d)
	if err != nil {
		t.Logf("events:\n%s", tail(cl.TakeEvents(), 40))
		t.Logf("status:\n%s", cl.Status())
		t.Fatal(err)
	}
	return cl
}

func runChaos(t *testing.T, opts Options, d time.Duration) (*Cluster, error) {
	opts.Dir = t.TempDir()
	opts.Network = NetOptions{MaxDelay: 30 * time.Millisecond, DropPct: 5}
	cl, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	if err := cl.Chaos(d); err != nil {
		return cl, err
	}
	if err := cl.Settle(10 * time.Second); err != nil {
		return cl, err
	}
	// Convergence is liveness: a set that rolls hundreds of entries back
	// on many members (one refetch per document) may need longer.
	for i := 0; i < 30 && cl.Err() == nil && cl.CheckConverged() != nil; i++ {
		cl.Run(time.Second)
	}
	if _, err := cl.Write(max(cl.Primary(), 0), 1); err != nil {
		return cl, err
	}
	cl.Run(3 * time.Second)
	return cl, cl.CheckConverged()
}

func tail(s string, n int) string {
	lines := splitLines(s)
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	out := ""
	for _, l := range lines {
		out += l + "\n"
	}
	return out
}

// TestChaosIsDeterministic runs one schedule twice: the same seed must
// give the same events and the same final state, or a failing seed could
// not be replayed.
func TestChaosIsDeterministic(t *testing.T) {
	run := func() string {
		cl, err := runChaos(t, Options{N: 7, Seed: 2}, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return cl.TakeEvents() + "\n" + cl.Status()
	}
	a, b := run(), run()
	if a != b {
		t.Fatalf("two runs of one seed differ:\n%s\n----\n%s", a, b)
	}
}

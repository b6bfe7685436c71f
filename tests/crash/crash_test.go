package crash

import (
	"context"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/internal/crashtest"
	"github.com/relaydb/relaydb/tests/harness"
)

// runTimeout bounds one topology's run (CI size takes well under it).
const runTimeout = 15 * time.Minute

// logTailBytes is how much of each member's log a failure prints.
const logTailBytes = 16 << 10

// results collects each topology's counts for the summary TestMain prints.
var results struct {
	mu  sync.Mutex
	all []*crashtest.Result
}

func TestMain(m *testing.M) {
	code := m.Run()
	results.mu.Lock()
	if len(results.all) > 0 {
		os.Stdout.WriteString("crash harness counts:\n" + crashtest.Summary(results.all...))
	}
	results.mu.Unlock()
	os.Exit(code)
}

func TestCrashStandalone(t *testing.T) {
	s := harness.Start(t)
	run(t, &standalone{t: t, s: s}, trials(t, 12))
}

func TestCrashReplSet(t *testing.T) {
	bin := binary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dir := t.TempDir()
	c, err := cluster.Up(ctx, cluster.Spec{Dir: dir, Data: 3, Bin: bin, DieWithParent: true})
	if err != nil {
		t.Fatalf("start a 3-member set: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, m := range c.Members() {
				t.Logf("%s log tail (%s):\n%s", m.Name, m.LogPath, tail(m.LogPath, logTailBytes))
			}
		}
		_ = c.Down(context.Background())
	})
	if err := crashtest.WaitSettled(ctx, c); err != nil {
		t.Fatalf("%v", err)
	}
	run(t, &crashtest.ReplSet{C: c}, trials(t, 6))
}

// run runs the harness against target and fails t on a lost op.
func run(t *testing.T, target crashtest.Target, n int) {
	seed := seed(t)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	res, err := crashtest.Run(ctx, target, crashtest.Config{Seed: seed, Trials: n, Bin: binary(t),
		KeepGoing: os.Getenv("RELAYDB_CRASH_KEEPGOING") != "", Logf: t.Logf})
	if res != nil {
		t.Logf("counts:\n%s", crashtest.Summary(res))
		results.mu.Lock()
		results.all = append(results.all, res)
		results.mu.Unlock()
	}
	if err != nil {
		t.Fatalf("seed %d (replay: RELAYDB_CRASH_SEED=%d go test ./tests/crash -run %s): %v", seed, seed, t.Name(), err)
	}
}

// seed returns RELAYDB_CRASH_SEED or a time-based seed, and logs it.
func seed(t *testing.T) uint64 {
	s := uint64(time.Now().UnixNano())
	if v := os.Getenv("RELAYDB_CRASH_SEED"); v != "" {
		p, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("RELAYDB_CRASH_SEED=%q: %v", v, err)
		}
		s = p
	}
	t.Logf("seed %d (replay with RELAYDB_CRASH_SEED=%d)", s, s)
	return s
}

// trials returns RELAYDB_CRASH_TRIALS or def.
func trials(t *testing.T, def int) int {
	v := os.Getenv("RELAYDB_CRASH_TRIALS")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("RELAYDB_CRASH_TRIALS=%q: want a positive number", v)
	}
	return n
}

func binary(t *testing.T) string {
	bin, err := harness.Binary()
	if err != nil {
		t.Fatalf("%v", err)
	}
	return bin
}

// tail returns at most n bytes from the end of the file at path.
func tail(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err.Error()
	}
	off := max(0, st.Size()-n)
	b := make([]byte, st.Size()-off)
	_, _ = f.ReadAt(b, off)
	return string(b)
}

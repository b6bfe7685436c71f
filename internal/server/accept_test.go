package server

import (
	"context"
	"log/slog"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"
)

// emfileListener fails Accept with EMFILE n times, then closes srv and
// reports the listener closed, so acceptLoop returns.
type emfileListener struct {
	n   int
	srv *Server
}

func (l *emfileListener) Accept() (net.Conn, error) {
	if l.n == 0 {
		l.srv.mu.Lock()
		l.srv.mu.closed = true
		l.srv.mu.Unlock()
		return nil, net.ErrClosed
	}
	l.n--
	return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
}

func (l *emfileListener) Close() error   { return nil }
func (l *emfileListener) Addr() net.Addr { return &net.TCPAddr{} }

// records keeps the log records a test server writes.
type records struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *records) WithGroup(string) slog.Handler            { return r }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, rec)
	return nil
}

// attrInt returns rec's integer attribute key (-1 when missing).
func attrInt(rec slog.Record, key string) int64 {
	v := int64(-1)
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == key {
			v = a.Value.Int64()
		}
		return true
	})
	return v
}

// At the descriptor limit the accept loop must back off 5 ms doubling to
// 1 s and log once per 10 s with the count of failures it stands for (it
// used to sleep 10 ms and log every failure: ~75 lines a second). The
// clock is simulated, so the test takes no real time.
func TestAcceptBackoffAtEMFILE(t *testing.T) {
	const failures = 1000
	log := &records{}
	s := New(Config{Logger: slog.New(log)}, nil)
	now := time.Unix(0, 0)
	var sleeps []time.Duration
	s.now = func() time.Time { return now }
	s.sleep = func(d time.Duration) { sleeps = append(sleeps, d); now = now.Add(d) }
	s.acceptLoop(&emfileListener{n: failures, srv: s})

	want := []time.Duration{5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000}
	for i, w := range want {
		if sleeps[i] != w*time.Millisecond {
			t.Fatalf("backoff %d is %v, want %v (all: %v)", i, sleeps[i], w*time.Millisecond, sleeps[:len(want)])
		}
	}
	if len(sleeps) != failures {
		t.Fatalf("%d sleeps for %d failures", len(sleeps), failures)
	}
	elapsed := now.Sub(time.Unix(0, 0))
	maxLines := int(elapsed/acceptLogInterval) + 1
	logged, suppressed := 0, int64(0)
	for _, rec := range log.recs {
		if rec.Level == slog.LevelWarn {
			logged++
			suppressed += attrInt(rec, "suppressed")
		}
	}
	t.Logf("%d failures over %v simulated: %d warnings, %d suppressed", failures, elapsed, logged, suppressed)
	if logged > maxLines || logged < maxLines-1 {
		t.Fatalf("%d warnings over %v, want one per %v (%d)", logged, elapsed, acceptLogInterval, maxLines)
	}
	if unreported := failures - logged - int(suppressed); unreported < 0 || unreported >= 10 {
		t.Fatalf("%d failures neither logged nor counted (only the last interval's may be)", unreported)
	}
}

func TestBackoffResets(t *testing.T) {
	var b backoff
	b.next()
	b.next()
	b.reset()
	if d := b.next(); d != acceptBackoffMin {
		t.Fatalf("after reset: %v, want %v", d, acceptBackoffMin)
	}
}

func TestLogThrottle(t *testing.T) {
	l := logThrottle{interval: 10 * time.Second}
	t0 := time.Unix(100, 0)
	steps := []struct {
		at         time.Duration
		ok         bool
		suppressed int
	}{{0, true, 0}, {time.Second, false, 0}, {9 * time.Second, false, 0}, {10 * time.Second, true, 2}, {25 * time.Second, true, 0}}
	for _, s := range steps {
		ok, n := l.allow(t0.Add(s.at))
		if ok != s.ok || n != s.suppressed {
			t.Fatalf("at %v: allow = %v, %d; want %v, %d", s.at, ok, n, s.ok, s.suppressed)
		}
	}
}

package storage

import (
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/vfs"
	"github.com/cockroachdb/pebble/vfs/errorfs"
)

// TestFullDiskIsFatal: a WAL write failing with ENOSPC must reach Fatal
// (the process stops, as mongod does), never a silently lost write.
func TestFullDiskIsFatal(t *testing.T) {
	var full atomic.Bool
	inj := errorfs.InjectorFunc(func(op errorfs.Op, path string) error {
		if full.Load() && op == errorfs.OpFileWrite && strings.HasSuffix(path, ".log") {
			return fmt.Errorf("write %s: %w", path, syscall.ENOSPC)
		}
		return nil
	})
	var fatal atomicErr
	old := Fatal
	Fatal = func(_ *slog.Logger, _ string, err error) { fatal.set(err) }
	defer func() { Fatal = old }() // last: Close may report the failure again
	e, err := Open(Options{InMemory: true, FS: errorfs.Wrap(vfs.NewMem(), inj)})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Close() }()
	full.Store(true)
	// The WAL is written by Pebble's flusher: the failure reaches Fatal
	// through Pebble's logger or, on a later commit, through the panic
	// Commit recovers. Bounded: 200 commits.
	for i := 0; i < 200 && fatal.get() == nil; i++ {
		b := e.NewBatch()
		_ = b.Set([]byte(fmt.Sprint("k", i)), []byte("v"))
		if _, err = e.Commit(b, false); err == nil {
			time.Sleep(time.Millisecond)
		}
	}
	if fatal.get() == nil {
		t.Fatalf("200 commits on a full disk: Fatal never called (last err %v)", err)
	}
	if got := fatal.get(); !strings.Contains(got.Error(), "no space left on device") {
		t.Errorf("Fatal error %q does not name the cause", got)
	}
}

type atomicErr struct{ v atomic.Pointer[error] }

func (a *atomicErr) set(err error) { a.v.CompareAndSwap(nil, &err) }

func (a *atomicErr) get() error {
	if p := a.v.Load(); p != nil {
		return *p
	}
	return nil
}

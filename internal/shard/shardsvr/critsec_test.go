package shardsvr

import (
	"context"
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// TestCriticalSection: entering waits for the admitted operation; a new
// one waits while the section is held and goes on after the exit, which
// makes the next check reload the metadata (StaleConfig for the old
// version); a second enter conflicts; a lease ends a forgotten section.
func TestCriticalSection(t *testing.T) {
	ctx := context.Background()
	src := &memSource{tables: map[string]*routing.ChunkManager{"db.c": table(t, "sh0")}, dbs: map[string]configsvr.Database{}}
	s := newState(src, true)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.CheckShardVersion(ctx, "db", find(ver(1, 1))))

	admitted, err := s.BeginVersioned(ctx, "db.c")
	must(err)
	entered := make(chan error, 1)
	go func() { entered <- s.EnterCriticalSection(ctx, "db.c", 10*time.Second) }()
	select {
	case err := <-entered:
		t.Fatalf("entered (%v) while an admitted operation runs", err)
	case <-time.After(50 * time.Millisecond):
	}
	admitted()
	must(<-entered)
	if err := s.EnterCriticalSection(ctx, "db.c", time.Second); !mongoerr.Is(err, mongoerr.ConflictingOperationInProgress) {
		t.Fatalf("second enter: %v, want ConflictingOperationInProgress", err)
	}

	// The metadata changes while the section is held: sh1 now owns [0, max).
	src.set("db.c", table(t, "sh1"))
	begun := make(chan func(), 1)
	go func() {
		release, err := s.BeginVersioned(ctx, "db.c")
		if err != nil {
			t.Error(err)
		}
		begun <- release
	}()
	select {
	case <-begun:
		t.Fatal("an operation was admitted during the critical section")
	case <-time.After(50 * time.Millisecond):
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := s.BeginVersioned(short, "other.c"); err != nil {
		t.Fatalf("another namespace is not blocked: %v", err)
	}
	if _, err := s.BeginVersioned(short, "db.c"); !mongoerr.Is(err, mongoerr.ExceededTimeLimit) {
		t.Fatalf("waiting past the deadline: %v, want ExceededTimeLimit", err)
	}
	reads := src.reads.Load()
	s.ExitCriticalSection("db.c")
	(<-begun)()
	// The exit forgot the metadata: the next check reads the new table.
	must(s.CheckShardVersion(ctx, "db", find(ver(1, 0))))
	if src.reads.Load() == reads {
		t.Fatal("the check after the exit used the metadata from before the section")
	}
	if m, err := s.Metadata(ctx, "db.c"); err != nil || m.ShardVersion("sh0") != ver(1, 0) {
		t.Fatalf("sh0's version after the exit: %v %v, want 1|0", m.ShardVersion("sh0"), err)
	}

	must(s.EnterCriticalSection(ctx, "db.c", time.Second)) // the shortest lease
	deadline, cancel2 := context.WithTimeout(ctx, 5*time.Second)
	defer cancel2()
	release, err := s.BeginVersioned(deadline, "db.c")
	if err != nil {
		t.Fatalf("the lease did not end the section: %v", err)
	}
	release()
}

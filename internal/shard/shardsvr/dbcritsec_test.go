package shardsvr

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

func unshardedFind(v configsvr.DatabaseVersion) bson.D {
	return bson.D{{Key: "find", Value: "c"}, {Key: "shardVersion", Value: ShardVersionDoc(Unsharded)}, {Key: "databaseVersion", Value: v.Doc()}}
}

// TestDBCriticalSection: movePrimary's database section waits for the
// operations admitted on the database, holds new ones (not other
// databases'), is renewed by the same reason and refused to another; its
// exit forgets the database entry before letting the held operations go,
// so they see the new primary (StaleDbVersion); a lease ends a forgotten
// section the same way.
func TestDBCriticalSection(t *testing.T) {
	ctx := context.Background()
	v1 := configsvr.NewDatabase("app", "sh0", time.Unix(100, 0))
	src := &memSource{tables: map[string]*routing.ChunkManager{}, dbs: map[string]configsvr.Database{"app": v1}}
	w := WithRanges{State: newState(src, true)}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.CheckShardVersion(ctx, "app", unshardedFind(v1.Version)))
	admitted, err := w.BeginOp(ctx, "app.c", nil)
	must(err)
	entered := make(chan error, 1)
	go func() { _, err := w.EnterDBCriticalSection(ctx, "app", "r1", 10*time.Second); entered <- err }()
	select {
	case err := <-entered:
		t.Fatalf("entered (%v) while an admitted operation runs", err)
	case <-time.After(50 * time.Millisecond):
	}
	admitted()
	must(<-entered)
	if held, err := w.EnterDBCriticalSection(ctx, "app", "r1", 10*time.Second); err != nil || !held {
		t.Fatalf("renewal with the same reason: held %v, %v", held, err)
	}
	if _, err := w.EnterDBCriticalSection(ctx, "app", "r2", time.Second); !mongoerr.Is(err, mongoerr.ConflictingOperationInProgress) {
		t.Fatalf("another reason: %v, want ConflictingOperationInProgress", err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if release, err := w.BeginOp(short, "other.c", nil); err != nil {
		t.Fatalf("another database is held: %v", err)
	} else {
		release()
	}
	if _, err := w.BeginOp(short, "app.d", nil); !mongoerr.Is(err, mongoerr.ExceededTimeLimit) {
		t.Fatalf("an operation on the database past its deadline: %v, want ExceededTimeLimit", err)
	}
	begun := make(chan func(), 1)
	go func() {
		release, err := w.BeginOp(ctx, "app.c", nil)
		if err != nil {
			t.Error(err)
		}
		begun <- release
	}()

	// The move commits: sh1 is the primary, lastMod 2.
	v2 := v1
	v2.Primary, v2.Version.LastMod = "sh1", 2
	src.mu.Lock()
	src.dbs["app"] = v2
	src.mu.Unlock()
	w.ExitDBCriticalSection("app", "r2") // not its reason: nothing happens
	select {
	case <-begun:
		t.Fatal("an exit with another reason released the section")
	case <-time.After(50 * time.Millisecond):
	}
	w.ExitDBCriticalSection("app", "r1")
	(<-begun)()
	if err := w.CheckShardVersion(ctx, "app", unshardedFind(v1.Version)); !mongoerr.Is(err, mongoerr.StaleDbVersion) {
		t.Fatalf("the held operation's check after the exit: %v, want StaleDbVersion", err)
	}

	// A lease ends a section nobody exits, forgetting the entry too: the
	// router committed (back to sh0 at lastMod 3) and died.
	v3 := v1
	v3.Version.LastMod = 3
	src.mu.Lock()
	src.dbs["app"] = v1
	src.mu.Unlock()
	w.forgetDB("app")
	must(w.CheckShardVersion(ctx, "app", unshardedFind(v1.Version))) // cached: sh0 at v1
	if _, err := w.EnterDBCriticalSection(ctx, "app", "r3", time.Second); err != nil {
		t.Fatal(err)
	}
	src.mu.Lock()
	src.dbs["app"] = v3
	src.mu.Unlock()
	deadline, cancel2 := context.WithTimeout(ctx, 5*time.Second)
	defer cancel2()
	release, err := w.BeginOp(deadline, "app.c", nil)
	if err != nil {
		t.Fatalf("the lease did not end the section: %v", err)
	}
	release()
	if err := w.CheckShardVersion(ctx, "app", unshardedFind(v1.Version)); !mongoerr.Is(err, mongoerr.StaleDbVersion) {
		t.Fatalf("the check after the lease ended: %v, want StaleDbVersion (the cached entry is forgotten)", err)
	}
	must(w.CheckShardVersion(ctx, "app", unshardedFind(v3.Version)))
}

package initialsync

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestInterruptedInitialSyncRestarts: a clone that fails midway leaves the
// flag set (Needed) and partial data; the next Run wipes it and finishes.
func TestInterruptedInitialSyncRestarts(t *testing.T) {
	src, conn := startSource(t)
	seed(t, src)
	dst := openMem(t)
	// Leftover data of the member's earlier life must go too.
	old, _, err := dst.EnsureCollection("gone", "old")
	if err != nil {
		t.Fatal(err)
	}
	mustInsert(t, dst, old, bson.D{{Key: "_id", Value: 1}})
	boom := errors.New("network cut")
	hs := &hookSource{Source: conn}
	hs.before = func(db string, cmd bson.D) error {
		if cmd[0].Key == "getMore" && db == "app" {
			return boom
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := Run(ctx, dst, hs, opts()); !errors.Is(err, boom) {
		t.Fatalf("Run = %v, want the injected error", err)
	}
	if need, err := Needed(dst); err != nil || !need {
		t.Fatalf("Needed after a failed initial sync = %v, %v", need, err)
	}
	if a := dst.Collection("app", "a"); a == nil || a.Count() == 0 || a.Count() >= nDocs {
		t.Fatalf("expected a partial clone of app.a, got %v", a)
	}
	hs.mu.Lock()
	hs.before = nil
	hs.mu.Unlock()
	if _, err := Run(ctx, dst, hs, opts()); err != nil {
		t.Fatal(err)
	}
	if need, _ := Needed(dst); need {
		t.Fatal("Needed after a finished initial sync")
	}
	assertSameData(t, src, dst)
}

// TestEmptySourceFails: nothing to sync from is an error, and nothing
// local is dropped.
func TestEmptySourceFails(t *testing.T) {
	_, conn := startSource(t)
	dst := openMem(t)
	keep, _, err := dst.EnsureCollection("app", "keep")
	if err != nil {
		t.Fatal(err)
	}
	mustInsert(t, dst, keep, bson.D{{Key: "_id", Value: 1}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := Run(ctx, dst, conn, opts()); !errors.Is(err, ErrSourceEmpty) {
		t.Fatalf("Run = %v, want ErrSourceEmpty", err)
	}
	if c := dst.Collection("app", "keep"); c == nil || c.Count() != 1 {
		t.Fatal("local data dropped although the sync never started")
	}
}

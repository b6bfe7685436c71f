package storage

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestGetMissingAndMetrics(t *testing.T) {
	e := openMem(t)
	if v, ok, err := e.Get([]byte("nope")); ok || err != nil || v != nil {
		t.Fatalf("missing get: %q %v %v", v, ok, err)
	}
	s1 := commit(t, e, "a", "1")
	s2 := commit(t, e, "b", "2")
	if s2 != s1+1 {
		t.Fatalf("seqs %d %d not consecutive", s1, s2)
	}
	if m := e.Metrics(); m.Committed != s2 {
		t.Fatalf("metrics %+v", m)
	}
}

func TestMalformedFormatVersion(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	b := e.NewBatch()
	_ = b.Set(KeyFormatVersion, []byte{1})
	if _, err := e.Commit(b, true); err != nil {
		t.Fatal(err)
	}
	_ = e.Close()
	if _, err := Open(Options{Dir: dir}); !errors.Is(err, ErrFormatVersion) {
		t.Fatalf("malformed version: %v", err)
	}
	// The failed open released the directory lock.
	if _, err := Open(Options{Dir: dir}); errors.Is(err, ErrLocked) {
		t.Fatal("failed open kept the lock")
	}
}

func TestReadOnlyOpenOfExistingDir(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	commit(t, e, "k", "v")
	_ = e.Close()
	ro, err := Open(Options{Dir: dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if v, ok, _ := ro.Get([]byte("k")); !ok || string(v) != "v" {
		t.Fatal("read-only open lost data")
	}
}

func TestWaitDurableAfterClose(t *testing.T) {
	e, err := Open(Options{InMemory: true, CommitInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	e.beforeSync = func() { time.Sleep(time.Millisecond) }
	seq := commit(t, e, "k", "v")
	done := make(chan error, 1)
	go func() { done <- e.WaitDurable(context.Background(), seq+100) }()
	time.Sleep(10 * time.Millisecond)
	_ = e.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("wait for a never-committed seq succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("WaitDurable hung after Close")
	}
}

func TestBatchCloseIsIdempotent(t *testing.T) {
	e := openMem(t)
	b := e.NewBatch()
	_ = b.Set([]byte("k"), []byte("v"))
	if b.Len() == 0 {
		t.Fatal("empty batch repr")
	}
	b.Close()
	b.Close()
	if _, ok, _ := e.Get([]byte("k")); ok {
		t.Fatal("closed batch was applied")
	}
}

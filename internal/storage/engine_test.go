package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/vfs"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func openMem(t testing.TB) *Engine {
	t.Helper()
	e, err := Open(Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

func commit(t testing.TB, e *Engine, kv ...string) uint64 {
	t.Helper()
	b := e.NewBatch()
	for i := 0; i+1 < len(kv); i += 2 {
		if err := b.Set([]byte(kv[i]), []byte(kv[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	seq, err := e.Commit(b, false)
	if err != nil {
		t.Fatal(err)
	}
	return seq
}

func TestBatchGetThroughAndCommit(t *testing.T) {
	e := openMem(t)
	commit(t, e, "a", "1")
	b := e.NewBatch()
	defer b.Close()
	if v, ok, err := b.Get([]byte("a")); err != nil || !ok || string(v) != "1" {
		t.Fatalf("get committed through batch: %q %v %v", v, ok, err)
	}
	if err := b.Set([]byte("b"), []byte("2")); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete([]byte("a")); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := b.Get([]byte("a")); ok {
		t.Fatal("batch delete not visible through batch")
	}
	if v, ok, _ := b.Get([]byte("b")); !ok || string(v) != "2" {
		t.Fatal("batch set not visible through batch")
	}
	if _, ok, _ := e.Get([]byte("b")); ok {
		t.Fatal("uncommitted write visible")
	}
	if b.Count() != 2 {
		t.Fatalf("count = %d", b.Count())
	}
	if _, err := e.Commit(b, true); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := e.Get([]byte("a")); ok {
		t.Fatal("delete not committed")
	}
	if v, _, _ := e.Get([]byte("b")); string(v) != "2" {
		t.Fatal("set not committed")
	}
}

func TestDeleteRange(t *testing.T) {
	e := openMem(t)
	commit(t, e, "p1", "x", "p2", "y", "q1", "z")
	b := e.NewBatch()
	if err := b.DeleteRange([]byte("p"), PrefixEnd([]byte("p"))); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Commit(b, false); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]bool{"p1": false, "p2": false, "q1": true} {
		if _, ok, _ := e.Get([]byte(k)); ok != want {
			t.Errorf("%s present=%v want %v", k, ok, want)
		}
	}
}

func TestIterBoundsAndDirections(t *testing.T) {
	e := openMem(t)
	commit(t, e, "a", "1", "b", "2", "c", "3", "d", "4")
	it, err := e.NewIter([]byte("b"), []byte("d"))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var fwd, rev []string
	for ok := it.First(); ok; ok = it.Next() {
		fwd = append(fwd, string(it.Key())+"="+string(it.Value()))
	}
	for ok := it.Last(); ok; ok = it.Prev() {
		rev = append(rev, string(it.Key()))
	}
	if strings.Join(fwd, ",") != "b=2,c=3" || strings.Join(rev, ",") != "c,b" {
		t.Fatalf("fwd %v rev %v", fwd, rev)
	}
	if !it.SeekGE([]byte("bb")) || string(it.Key()) != "c" {
		t.Fatal("SeekGE")
	}
	if !it.SeekLT([]byte("c")) || string(it.Key()) != "b" {
		t.Fatal("SeekLT")
	}
	if it.Error() != nil || !it.Valid() {
		t.Fatal("iterator state")
	}
}

func TestIterIsPointInTime(t *testing.T) {
	e := openMem(t)
	commit(t, e, "a", "1")
	it, err := e.NewIter(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	commit(t, e, "b", "2")
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		if bytes.HasPrefix(it.Key(), []byte{PrefixMeta}) {
			continue
		}
		n++
	}
	if n != 1 {
		t.Fatalf("iterator saw %d user keys, want 1 (snapshot at creation)", n)
	}
}

func TestSnapshot(t *testing.T) {
	e := openMem(t)
	commit(t, e, "k", "old")
	s := e.NewSnapshot()
	defer s.Close()
	commit(t, e, "k", "new", "k2", "x")
	if v, _, _ := s.Get([]byte("k")); string(v) != "old" {
		t.Fatalf("snapshot get = %q", v)
	}
	it, err := s.NewIter([]byte("k"), []byte("l"))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	if n != 1 {
		t.Fatalf("snapshot iter saw %d keys", n)
	}
}

func TestReopenPersistsAndChecksFormat(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	commit(t, e, "k", "v")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e, err = Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok, _ := e.Get([]byte("k")); !ok || string(v) != "v" {
		t.Fatal("value lost across reopen")
	}
	// Pretend a newer release wrote the directory.
	b := e.NewBatch()
	var buf [4]byte
	binary.BigEndian.PutUint32(buf[:], FormatVersion+1)
	_ = b.Set(KeyFormatVersion, buf[:])
	if _, err := e.Commit(b, true); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = Open(Options{Dir: dir})
	if !errors.Is(err, ErrFormatVersion) || !strings.Contains(err.Error(), "version 2") {
		t.Fatalf("open newer format: %v", err)
	}
}

func TestReadOnlyRefusesEmptyDir(t *testing.T) {
	_, err := Open(Options{Dir: t.TempDir(), ReadOnly: true})
	if err == nil {
		t.Fatal("read-only open of an empty dir succeeded")
	}
}

func TestSecondOpenIsLocked(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(Options{Dir: dir})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "dbpath is locked") {
		t.Fatalf("second open: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e, err = Open(Options{Dir: dir})
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	_ = e.Close()
}

func TestSharedMemFSSurvivesReopen(t *testing.T) {
	fs := vfs.NewMem()
	e, err := Open(Options{InMemory: true, FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	commit(t, e, "k", "v")
	_ = e.Close()
	e, err = Open(Options{InMemory: true, FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, ok, _ := e.Get([]byte("k")); !ok {
		t.Fatal("mem fs reopen lost data")
	}
}

func TestGroupCommitSharesSyncs(t *testing.T) {
	e, err := Open(Options{InMemory: true, CommitInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.beforeSync = func() { time.Sleep(2 * time.Millisecond) } // a disk-like fsync
	const writers = 64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			seq := commit(t, e, string(rune('a'+i%26))+string(rune(i)), "v")
			if err := e.WaitDurable(context.Background(), seq); err != nil {
				t.Error(err)
			}
		}(i)
	}
	close(start)
	wg.Wait()
	m := e.Metrics()
	if m.Durable < m.Committed-0 || m.Committed != writers {
		t.Fatalf("durable %d committed %d", m.Durable, m.Committed)
	}
	if m.Syncs == 0 || m.Syncs >= writers {
		t.Fatalf("%d writers used %d syncs; want sharing", writers, m.Syncs)
	}
	t.Logf("%d writers, %d syncs", writers, m.Syncs)
}

func TestBackgroundFlusherSyncs(t *testing.T) {
	e, err := Open(Options{InMemory: true, CommitInterval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	seq := commit(t, e, "k", "v")
	deadline := time.Now().Add(5 * time.Second)
	for e.Metrics().Durable < seq {
		if time.Now().After(deadline) {
			t.Fatal("background flusher never synced")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestWaitDurableContextAndSyncNow(t *testing.T) {
	e := openMem(t)
	commit(t, e, "k", "v")
	if err := e.SyncNow(); err != nil {
		t.Fatal(err)
	}
	if m := e.Metrics(); m.Durable != m.Committed {
		t.Fatalf("after SyncNow durable %d committed %d", m.Durable, m.Committed)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := e.WaitDurable(ctx, 1<<40); !errors.Is(err, context.Canceled) {
		t.Fatalf("wait for a future seq with cancelled ctx: %v", err)
	}
}

func TestFatalHookOnClosedEngine(t *testing.T) {
	e, err := Open(Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	b := e.NewBatch()
	_ = b.Set([]byte("k"), []byte("v"))
	_ = e.Close()
	var called error
	old := Fatal
	Fatal = func(_ *slog.Logger, _ string, err error) { called = err }
	defer func() { Fatal = old }()
	// Pebble panics on a closed DB; Commit must turn that into Fatal.
	if _, err := e.Commit(b, false); err == nil || called == nil {
		t.Fatalf("commit on closed engine: err=%v fatal=%v", err, called)
	}
}

func TestKeys(t *testing.T) {
	ts := bson.Timestamp{T: 10, I: 3}
	got, ok := OplogTS(OplogKey(ts))
	if !ok || got != ts {
		t.Fatalf("oplog key round trip: %v", got)
	}
	if _, ok := OplogTS([]byte{PrefixDocument, 1}); ok {
		t.Fatal("non-oplog key decoded")
	}
	a, b := OplogKey(bson.Timestamp{T: 1, I: 9}), OplogKey(bson.Timestamp{T: 2, I: 1})
	if bytes.Compare(a, b) >= 0 {
		t.Fatal("oplog keys not in ts order")
	}
	tests := []struct{ in, want []byte }{
		{[]byte{1, 2}, []byte{1, 3}},
		{[]byte{1, 0xff}, []byte{2}},
		{[]byte{0xff}, nil},
	}
	for _, tc := range tests {
		if got := PrefixEnd(tc.in); !bytes.Equal(got, tc.want) {
			t.Errorf("PrefixEnd(%x) = %x want %x", tc.in, got, tc.want)
		}
	}
	if !bytes.HasPrefix(DocKey(7, []byte("x")), DocPrefix(7)) || len(IndexPrefix(1)) != 5 || len(CollStatsKey(1)) != 5 || len(CatalogKey(1)) != 5 {
		t.Fatal("key layout")
	}
	lo, hi := CatalogBounds()
	if bytes.Compare(lo, KeyNextID) > 0 || bytes.Compare(KeyNextID, hi) >= 0 {
		t.Log("next-id key lies outside catalog entry bounds (fine)")
	}
}

func BenchmarkCommitNoSync(b *testing.B) {
	e := openMem(b)
	val := bytes.Repeat([]byte("x"), 100)
	key := make([]byte, 8)
	for i := 0; i < b.N; i++ {
		binary.BigEndian.PutUint64(key, uint64(i))
		bt := e.NewBatch()
		_ = bt.Set(key, val)
		if _, err := e.Commit(bt, false); err != nil {
			b.Fatal(err)
		}
	}
}

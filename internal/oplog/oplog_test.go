package oplog

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/vfs"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/storage"
)

func TestNextTS(t *testing.T) {
	base := time.Unix(100, 0)
	tests := []struct {
		last bson.Timestamp
		now  time.Time
		want bson.Timestamp
	}{
		{bson.Timestamp{}, base, bson.Timestamp{T: 100, I: 1}},
		{bson.Timestamp{T: 100, I: 1}, base, bson.Timestamp{T: 100, I: 2}},
		{bson.Timestamp{T: 100, I: 7}, base.Add(time.Second), bson.Timestamp{T: 101, I: 1}},
		{bson.Timestamp{T: 200, I: 3}, base, bson.Timestamp{T: 200, I: 4}}, // clock behind
		{bson.Timestamp{T: 100, I: ^uint32(0)}, base, bson.Timestamp{T: 101, I: 1}},
	}
	for _, tc := range tests {
		if got := nextTS(tc.last, tc.now); got != tc.want {
			t.Errorf("nextTS(%v) = %v want %v", tc.last, got, tc.want)
		}
	}
}

func TestEntryRoundTripAndFieldOrder(t *testing.T) {
	ui := bson.Binary{Subtype: 4, Data: make([]byte, 16)}
	e := &Entry{TS: bson.Timestamp{T: 5, I: 2}, Term: 3, Op: OpUpdate, NS: "db.c", UI: &ui,
		O:  bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: int32(1)}}}},
		O2: bson.D{{Key: "_id", Value: int32(9)}}, Wall: time.UnixMilli(1234).UTC()}
	raw, err := e.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var d bson.D
	if err := bson.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, f := range d {
		keys = append(keys, f.Key)
	}
	want := []string{"ts", "t", "v", "op", "ns", "ui", "o", "o2", "wall"}
	if len(keys) != len(want) {
		t.Fatalf("fields %v", keys)
	}
	for i := range want {
		if keys[i] != want[i] {
			t.Fatalf("fields %v want %v", keys, want)
		}
	}
	got, err := Unmarshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got.TS != e.TS || got.Term != 3 || got.V != 2 || got.Op != "u" || got.NS != "db.c" ||
		got.UI == nil || !got.Wall.Equal(e.Wall) || len(got.O2) != 1 || len(got.O) != 1 {
		t.Fatalf("round trip: %+v", got)
	}
	if _, err := Unmarshal([]byte{1, 2}); err == nil {
		t.Fatal("garbage decoded")
	}
	bad, _ := bson.Marshal(bson.D{{Key: "ts", Value: "x"}})
	if _, err := Unmarshal(bad); err == nil {
		t.Fatal("wrong ts type accepted")
	}
}

type fixture struct {
	eng *storage.Engine
	log *Log
	now time.Time
}

func newFixture(t *testing.T, fs vfs.FS, sizeMB int) *fixture {
	t.Helper()
	if fs == nil {
		fs = vfs.NewMem()
	}
	eng, err := storage.Open(storage.Options{InMemory: true, FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{eng: eng, now: time.Unix(1000, 0)}
	f.log, err = Open(eng, Options{SizeMB: sizeMB, Now: func() time.Time { return f.now }})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// write appends one entry in its own batch; commit=false aborts it.
func (f *fixture) reserveAppend(t *testing.T, o bson.D) (*Slot, *storage.Batch) {
	t.Helper()
	s := f.log.Reserve()
	b := f.eng.NewBatch()
	if err := f.log.Append(b, s, &Entry{Op: OpInsert, NS: "db.c", O: o}); err != nil {
		t.Fatal(err)
	}
	return s, b
}

func (f *fixture) write(t *testing.T, o bson.D) bson.Timestamp {
	t.Helper()
	s, b := f.reserveAppend(t, o)
	if _, err := f.eng.Commit(b, false); err != nil {
		t.Fatal(err)
	}
	f.log.Commit(s)
	return s.TS
}

func TestVisibilityNeverShowsAHole(t *testing.T) {
	f := newFixture(t, nil, 0)
	defer f.eng.Close()
	s1, b1 := f.reserveAppend(t, bson.D{{Key: "n", Value: 1}})
	s2, b2 := f.reserveAppend(t, bson.D{{Key: "n", Value: 2}})
	// Commit 2 before 1 (a future concurrent commit path).
	if _, err := f.eng.Commit(b2, false); err != nil {
		t.Fatal(err)
	}
	f.log.Commit(s2)
	if !f.log.Visible().IsZero() {
		t.Fatalf("visible %v while entry 1 is in flight", f.log.Visible())
	}
	if got, _ := f.log.Read(bson.Timestamp{}, false, 0); len(got) != 0 {
		t.Fatalf("reader saw %d entries past a hole", len(got))
	}
	if _, err := f.eng.Commit(b1, false); err != nil {
		t.Fatal(err)
	}
	f.log.Commit(s1)
	if f.log.Visible() != s2.TS {
		t.Fatalf("visible %v want %v", f.log.Visible(), s2.TS)
	}
	got, err := f.log.Read(bson.Timestamp{}, false, 0)
	if err != nil || len(got) != 2 || got[0].TS != s1.TS || got[1].TS != s2.TS {
		t.Fatalf("read %v %v", got, err)
	}
}

func TestAbortedSlotDoesNotBlockVisibility(t *testing.T) {
	f := newFixture(t, nil, 0)
	defer f.eng.Close()
	s1, b1 := f.reserveAppend(t, nil)
	ts2 := bson.Timestamp{}
	b1.Close()
	s2, b2 := f.reserveAppend(t, nil)
	if _, err := f.eng.Commit(b2, false); err != nil {
		t.Fatal(err)
	}
	f.log.Commit(s2)
	ts2 = s2.TS
	if !f.log.Visible().IsZero() {
		t.Fatal("visible past pending slot")
	}
	f.log.Abort(s1)
	if f.log.Visible() != ts2 {
		t.Fatalf("visible %v after abort, want %v", f.log.Visible(), ts2)
	}
}

func TestReadInclusiveLimitReverse(t *testing.T) {
	f := newFixture(t, nil, 0)
	defer f.eng.Close()
	var ts []bson.Timestamp
	for i := 0; i < 5; i++ {
		ts = append(ts, f.write(t, bson.D{{Key: "i", Value: int32(i)}}))
	}
	tests := []struct {
		after     bson.Timestamp
		inclusive bool
		limit     int
		first     bson.Timestamp
		n         int
	}{
		{bson.Timestamp{}, false, 0, ts[0], 5},
		{ts[1], false, 0, ts[2], 3},
		{ts[1], true, 0, ts[1], 4},
		{ts[1], true, 2, ts[1], 2},
		{ts[4], false, 0, bson.Timestamp{}, 0},                         // at the visibility point
		{ts[4], true, 0, ts[4], 1},                                     // the newest, inclusive
		{bson.Timestamp{T: ts[4].T + 1}, true, 0, bson.Timestamp{}, 0}, // past it
	}
	for _, tc := range tests {
		got, err := f.log.Read(tc.after, tc.inclusive, tc.limit)
		if err != nil || len(got) != tc.n || (tc.n > 0 && got[0].TS != tc.first) {
			t.Errorf("Read(%v,%v,%d): %d entries, err %v", tc.after, tc.inclusive, tc.limit, len(got), err)
		}
	}
	rev, err := f.log.ReadReverse(bson.Timestamp{}, 2)
	if err != nil || len(rev) != 2 {
		t.Fatalf("reverse %d %v", len(rev), err)
	}
	e, _ := Unmarshal(rev[0])
	if e.TS != ts[4] {
		t.Fatalf("reverse starts at %v", e.TS)
	}
	if last, _ := f.log.Last(); last != ts[4] || f.log.First() != ts[0] {
		t.Fatalf("Last %v First %v", last, f.log.First())
	}
}

func TestWaitWokenByCommit(t *testing.T) {
	f := newFixture(t, nil, 0)
	defer f.eng.Close()
	first := f.write(t, nil)
	done := make(chan error, 1)
	go func() { done <- f.log.Wait(context.Background(), first) }()
	select {
	case err := <-done:
		t.Fatalf("Wait returned before a newer entry: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	f.write(t, nil)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Wait not woken by commit")
	}
	if err := f.log.Wait(context.Background(), bson.Timestamp{}); err != nil {
		t.Fatal("Wait for an already visible entry blocked or failed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	last, _ := f.log.Last()
	if err := f.log.Wait(ctx, last); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait with deadline: %v", err)
	}
}

func TestReopenSeedsAllocator(t *testing.T) {
	fs := vfs.NewMem()
	f := newFixture(t, fs, 0)
	f.log.SetTerm(4)
	last := f.write(t, nil)
	_ = f.eng.Close()
	g := newFixture(t, fs, 0) // same (frozen) wall clock second
	defer g.eng.Close()
	if v, term := g.log.Last(); v != last || term != 4 {
		t.Fatalf("reopened Last = %v,%d want %v,4", v, term, last)
	}
	next := g.write(t, nil)
	if !next.After(last) {
		t.Fatalf("ts went backwards across restart: %v after %v", next, last)
	}
	if g.log.SizeBytes() == 0 {
		t.Fatal("size estimate not loaded")
	}
}

func TestTruncateOldestFirst(t *testing.T) {
	f := newFixture(t, nil, 1)
	defer f.eng.Close()
	pad := string(make([]byte, 10<<10))
	var ts []bson.Timestamp
	for i := 0; i < 300; i++ { // ~3MB with a 1MB cap
		ts = append(ts, f.write(t, bson.D{{Key: "pad", Value: pad}}))
	}
	if f.log.SizeBytes() <= f.log.MaxBytes() {
		t.Fatal("fixture did not exceed the cap")
	}
	n, err := f.log.Truncate()
	if err != nil || n == 0 {
		t.Fatalf("truncate %d %v", n, err)
	}
	if f.log.SizeBytes() > f.log.MaxBytes() {
		t.Fatalf("size %d still above cap %d", f.log.SizeBytes(), f.log.MaxBytes())
	}
	got, err := f.log.Read(bson.Timestamp{}, false, 0)
	if err != nil || len(got) != 300-n {
		t.Fatalf("%d left, %v", len(got), err)
	}
	if got[0].TS != ts[n] || got[len(got)-1].TS != ts[299] || f.log.First() != ts[n] {
		t.Fatalf("truncation did not remove the oldest: first %v", got[0].TS)
	}
}

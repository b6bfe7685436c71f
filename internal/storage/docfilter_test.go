package storage

import (
	"fmt"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/vfs"
)

// TestDocFilter: every added key is held across segment growth; keys never
// added are mostly reported absent; a full filter refuses to grow.
func TestDocFilter(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		maxFP float64
	}{{"one segment", 1000, 0.03}, {"several segments", 100_000, 0.08}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newDocFilter()
			for i := 0; i < tc.n; i++ {
				if _, ok := f.add(dmKey(3, fmt.Sprintf("k%d", i)), maxFilterBytes); !ok {
					t.Fatalf("add %d refused", i)
				}
			}
			for i := 0; i < tc.n; i++ {
				if !f.mayHold(dmKey(3, fmt.Sprintf("k%d", i))) {
					t.Fatalf("added key k%d reported absent", i)
				}
			}
			fp := 0
			for i := 0; i < 20000; i++ {
				if f.mayHold(dmKey(3, fmt.Sprintf("other%d", i))) {
					fp++
				}
			}
			if rate := float64(fp) / 20000; rate > tc.maxFP {
				t.Errorf("false positive rate %.3f > %.3f", rate, tc.maxFP)
			}
		})
	}
	f := newDocFilter()
	if _, ok := f.add(dmKey(3, "a"), 100); ok {
		t.Errorf("a segment larger than the budget was made")
	}
}

// TestDocFilterDropped: once the byte budget is spent, the collection's
// filter is dropped and every _id below the bound is probed again, also
// ones the filter held; other collections keep theirs.
func TestDocFilterDropped(t *testing.T) {
	e, err := Open(Options{InMemory: true, FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	commitDocs(t, e, 4, []string{"m"}, nil)
	commitDocs(t, e, 5, []string{"m"}, nil)
	if may, _ := e.MayHoldDoc(dmKey(4, "a")); may {
		t.Fatalf("filtered collection: a never-held _id below the bound must be absent")
	}
	e.docMax.mu.Lock()
	e.docMax.fBytes = maxFilterBytes // the next segment of any filter is refused
	e.docMax.mu.Unlock()
	keys := make([]string, 2*filterFirstCap) // more than one segment takes, false positives aside
	for i := range keys {
		keys[i] = fmt.Sprintf("b%06d", i)
	}
	commitDocs(t, e, 4, keys, nil)
	for _, id := range []string{"a", "b000001", keys[len(keys)-1]} {
		if may, _ := e.MayHoldDoc(dmKey(4, id)); !may {
			t.Errorf("dropped filter: MayHoldDoc(4, %q) = false, want a probe", id)
		}
	}
	if may, _ := e.MayHoldDoc(dmKey(5, "a")); may {
		t.Errorf("collection 5 lost its filter")
	}
	if may, _ := e.MayHoldDoc(dmKey(5, "m")); !may {
		t.Errorf("collection 5: held _id reported absent")
	}
}

// TestDocFilterFilledFromStore: after a restart, a collection's filter is
// filled from the stored keys (a held _id below the bound is "may hold",
// a never-held one absent); one holding more than fillFilterMax keys is
// unfiltered (every _id below the bound is probed) until the background
// filler completes its filter.
func TestDocFilterFilledFromStore(t *testing.T) {
	defer func(m int) { fillFilterMax = m }(fillFilterMax)
	fillFilterMax = 50
	fs := vfs.NewMem()
	e, err := Open(Options{InMemory: true, FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	small, big := []string{"b", "d", "f"}, make([]string, fillFilterMax+1)
	release := make(chan struct{})
	defer func(h func()) { fillStarted = h }(fillStarted)
	fillStarted = func() { <-release } // the filler waits until the checks below ran
	for i := range big {
		big[i] = fmt.Sprintf("k%03d", i)
	}
	commitDocs(t, e, 4, small, nil)
	commitDocs(t, e, 5, big, nil)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if e, err = Open(Options{InMemory: true, FS: fs}); err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, tc := range []struct {
		coll uint32
		id   string
		want bool
	}{{4, "a", false}, {4, "b", true}, {4, "c", false}, {4, "d", true}, {4, "e", false}, {4, "f", true}, {4, "g", false},
		{5, "k000", true}, {5, "k0005", true}, {5, big[fillFilterMax], true}, {5, "l", false}} {
		if got, err := e.MayHoldDoc(dmKey(tc.coll, tc.id)); err != nil || got != tc.want {
			t.Errorf("MayHoldDoc(%d, %q) = %v, %v; want %v", tc.coll, tc.id, got, err, tc.want)
		}
	}
	close(release)
	waitFilled(t, e, 5)
	for _, tc := range []struct {
		id   string
		want bool
	}{{"k000", true}, {"k0005", false}, {big[fillFilterMax], true}, {"k0505", false}, {"l", false}} {
		if got, err := e.MayHoldDoc(dmKey(5, tc.id)); err != nil || got != tc.want {
			t.Errorf("filled in the background: MayHoldDoc(5, %q) = %v, %v; want %v", tc.id, got, err, tc.want)
		}
	}
	commitDocs(t, e, 4, []string{"c"}, nil) // noted into the filled filter
	if got, _ := e.MayHoldDoc(dmKey(4, "c")); !got {
		t.Errorf("a key committed after the fill is reported absent")
	}
}

// TestDocFilterRewrites: a key noted again (an update rewrites its
// document key) takes no room: the filter keeps one segment.
func TestDocFilterRewrites(t *testing.T) {
	f := newDocFilter()
	for i := 0; i < 3*filterFirstCap; i++ {
		if _, ok := f.add(dmKey(3, fmt.Sprintf("k%d", i%10)), maxFilterBytes); !ok {
			t.Fatalf("add %d refused", i)
		}
	}
	if len(f.segs) != 1 || f.keys > 10 {
		t.Errorf("10 keys noted %d times: %d segments, %d keys counted", 3*filterFirstCap, len(f.segs), f.keys)
	}
}

// waitFilled waits (bounded) until collection id's filter is complete.
func waitFilled(t *testing.T, e *Engine, id uint32) {
	t.Helper()
	for i := 0; i < 500; i++ {
		e.docMax.mu.Lock()
		done := e.docMax.building[id] == nil && e.docMax.f[id] != nil
		e.docMax.mu.Unlock()
		if done {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("collection %d: the background filler did not complete in 5 s", id)
}

// TestDocFilterBackgroundFillSeesConcurrentWrites: keys committed while
// the filler runs (after its iterator was opened, so not in its view, and
// before it, once registered) are in the completed filter; keys never
// held are not; a filter dropped while being filled is not installed.
func TestDocFilterBackgroundFillSeesConcurrentWrites(t *testing.T) {
	defer func(m int) { fillFilterMax = m }(fillFilterMax)
	fillFilterMax = 100
	fs := vfs.NewMem()
	e, err := Open(Options{InMemory: true, FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	var held []string
	for i := 0; i < 3*fillChunk; i += 2 { // even numbers only
		held = append(held, fmt.Sprintf("k%06d", i))
	}
	held = append(held, "z") // the bound
	commitDocs(t, e, 7, held, nil)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if e, err = Open(Options{InMemory: true, FS: fs}); err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	opened, release := make(chan struct{}), make(chan struct{})
	defer func(h func()) { fillStarted = h }(fillStarted)
	fillStarted = func() { close(opened); <-release }
	if got, _ := e.MayHoldDoc(dmKey(7, "k000001")); !got { // registers the filler
		t.Fatal("a key below the bound is reported absent before the filter is complete")
	}
	<-opened
	late := []string{"k000003", fmt.Sprintf("k%06d", 2*fillChunk+1)}
	commitDocs(t, e, 7, late, nil) // not in the filler's view
	close(release)
	waitFilled(t, e, 7)
	for _, k := range append(append([]string{}, held...), late...) {
		if got, _ := e.MayHoldDoc(dmKey(7, k)); !got {
			t.Fatalf("held key %q reported absent by the completed filter", k)
		}
	}
	absent := 0
	for i := 1; i < 3*fillChunk; i += 2 {
		if got, _ := e.MayHoldDoc(dmKey(7, fmt.Sprintf("k%06d", i))); !got {
			absent++
		}
	}
	if absent < 3*fillChunk/2*9/10 { // ~1 % false positives per segment
		t.Errorf("only %d of %d never-held keys reported absent", absent, 3*fillChunk/2)
	}
}

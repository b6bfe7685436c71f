// Package oplog is relaydb's operation log (local.oplog.rs): the entry type,
// a monotonic timestamp allocator, the visibility point, a tailing reader and
// truncation by size.
//
// Invariants:
//   - Timestamps are allocated strictly increasing, also across restarts
//     (the allocator is seeded from the last entry at Open).
//   - An entry is appended inside the batch of the write it describes
//     (storage batch), never on its own.
//   - Visibility point: readers (Read, Wait) see entries up to Visible() only.
//     Visible() is the largest committed ts such that every ts allocated
//     before it is committed or aborted: a reader never observes a hole
//     (entry N+1 is never visible before N commits). Slots are tracked in
//     allocation order, so this stays correct if commits become concurrent.
//   - Truncation deletes the oldest entries only, never past Visible() and
//     never the newest visible entry; it drops whole ranges (markers.go)
//     with one range deletion.
//   - Accounting: bytes, count and first describe exactly the entries from
//     first to Visible() (an entry is counted when it becomes visible). A
//     checkpoint of it (checkpoint.go) is written in the same storage batch
//     as every deletion, so Open scans only entries newer than it.
//   - Cluster time: Reserve never allocates a timestamp at or below the
//     highest cluster time the node has seen (AdvanceClusterTime, from a
//     gossiped $clusterTime), so a causal read after a time learned from
//     another replica set is reached by this node's next write. The floor
//     never moves backwards (not even on TruncateAfter) and is not
//     persisted: after a restart the oplog top seeds it again, as MongoDB's
//     clock. ReserveAt (a secondary copying its source's entries) is not
//     held to it.
package oplog

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/invariants"
	"github.com/relaydb/relaydb/internal/storage"
)

// Options configure Open.
type Options struct {
	// SizeMB caps the oplog; 0 means 1024.
	SizeMB int
	// Now is the wall clock; nil means time.Now.
	Now func() time.Time
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// Log is the oplog of one engine.
type Log struct {
	eng    *storage.Engine
	now    func() time.Time
	logger *slog.Logger

	mu struct {
		sync.Mutex
		last     bson.Timestamp // last allocated ts
		floor    bson.Timestamp // highest cluster time seen (AdvanceClusterTime)
		term     int64
		lastTerm int64          // term of the entry at the visibility point
		visible  bson.Timestamp // visibility point
		slots    []*Slot        // allocated, not yet retired, in ts order
		changed  chan struct{}  // closed when visible advances
		bytes    int64          // size of the entries first..visible
		count    int64          // number of the entries first..visible
		first    bson.Timestamp // oldest entry (zero if empty)
		maxBytes int64
		marks    markers   // the entries' ranges (markers.go)
		cp       cpState   // the last checkpoint written (checkpoint.go)
		tail     tailCache // the newest visible entries' bytes (tail.go)
	}
	truncMu sync.Mutex // serializes Truncate
}

// Slot is an allocated timestamp whose entry is being written.
type Slot struct {
	TS    bson.Timestamp
	term  int64 // stamped on the entry
	state int8  // 0 pending, 1 committed, 2 aborted
	bytes int64
	raw   []byte // the entry as written (for the tail cache)
}

// Open loads the oplog's last entry and size from eng.
func Open(eng *storage.Engine, opts Options) (*Log, error) {
	if opts.SizeMB <= 0 {
		opts.SizeMB = 1024
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	l := &Log{eng: eng, now: opts.Now, logger: opts.Logger}
	l.mu.changed = make(chan struct{})
	l.mu.maxBytes = int64(opts.SizeMB) << 20
	if err := l.load(); err != nil {
		return nil, err
	}
	l.mu.tail.max = tailCacheMax(l.mu.maxBytes)
	l.mu.tail.reset(l.mu.visible)
	return l, nil
}

// load reads the accounting checkpoint, scans the entries newer than it
// (all of them without a usable checkpoint) and reads the last entry.
func (l *Log) load() error {
	l.mu.marks.target = markerTarget(l.mu.maxBytes)
	from, err := l.loadCheckpoint()
	if err != nil {
		return err
	}
	lo, hi := storage.OplogBounds()
	it, err := l.eng.NewIter(from, hi)
	if err != nil {
		return err
	}
	defer it.Close()
	scanned := 0
	for ok := it.First(); ok; ok = it.Next() {
		ts, _ := storage.OplogTS(it.Key())
		l.accountLocked(ts, int64(len(it.Value())))
		scanned++
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("oplog: load: %w", err)
	}
	l.mu.cp.scannedAtOpen = scanned
	return l.loadTop(lo, hi)
}

// loadTop seeds the allocator and visibility point from the last entry.
func (l *Log) loadTop(lo, hi []byte) error {
	it, err := l.eng.NewIter(lo, hi)
	if err != nil {
		return err
	}
	defer it.Close()
	if it.Last() {
		e, err := Unmarshal(it.Value())
		if err != nil {
			return fmt.Errorf("oplog: last entry: %w", err)
		}
		l.mu.last, l.mu.visible = e.TS, e.TS
		l.mu.term, l.mu.lastTerm = e.Term, e.Term
	}
	return it.Error()
}

// accountLocked counts a newly visible entry. REQUIRES: l.mu (or Open).
func (l *Log) accountLocked(ts bson.Timestamp, bytes int64) {
	l.mu.marks.add(ts, bytes)
	l.mu.bytes += bytes
	l.mu.count++
	l.mu.cp.appended += bytes
	if l.mu.first.IsZero() {
		l.mu.first = ts
	}
}

// SetTerm sets the term stamped on entries appended from now on.
func (l *Log) SetTerm(term int64) {
	l.mu.Lock()
	l.mu.term = term
	l.mu.Unlock()
}

// Reserve allocates the next timestamp. The caller must Append the entry to
// its batch and then call Commit or Abort exactly once.
func (l *Log) Reserve() *Slot {
	l.mu.Lock()
	defer l.mu.Unlock()
	base := l.mu.last
	if l.mu.floor.After(base) {
		base = l.mu.floor
	}
	l.mu.last = nextTS(base, l.now())
	s := &Slot{TS: l.mu.last, term: l.mu.term}
	l.mu.slots = append(l.mu.slots, s)
	return s
}

// ReserveAt allocates the given timestamp and term: a secondary writing an
// entry its sync source created. ts must be newer than every timestamp
// allocated so far; later Reserve calls continue after it.
func (l *Log) ReserveAt(ts bson.Timestamp, term int64) (*Slot, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !ts.After(l.mu.last) {
		return nil, fmt.Errorf("oplog: entry %v is not after the last allocated %v", ts, l.mu.last)
	}
	l.mu.last = ts
	s := &Slot{TS: ts, term: term}
	l.mu.slots = append(l.mu.slots, s)
	return s, nil
}

// Append fills in e's ts, term and wall time from s and writes it to b;
// an entry with Raw naming s's ts and term is stored as those bytes
// (raw.go).
func (l *Log) Append(b *storage.Batch, s *Slot, e *Entry) error {
	raw := e.rawFor(s.TS, s.term)
	e.TS, e.Term = s.TS, s.term
	if e.Wall.IsZero() {
		e.Wall = l.now()
	}
	if raw == nil {
		var err error
		if raw, err = e.Marshal(); err != nil {
			return fmt.Errorf("oplog: encode entry: %w", err)
		}
	}
	s.bytes += int64(len(raw))
	s.raw = raw
	return b.Set(storage.OplogKey(s.TS), raw)
}

// Commit marks s's batch as committed.
func (l *Log) Commit(s *Slot) { l.retire(s, 1) }

// Abort marks s as never to be written (its batch was discarded).
func (l *Log) Abort(s *Slot) { l.retire(s, 2) }

// retire records s's outcome and advances the visibility point over every
// leading slot that is no longer pending.
func (l *Log) retire(s *Slot, state int8) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if invariants.Enabled {
		defer l.checkRetireLocked(s, s.state, l.mu.visible)
	}
	s.state = state
	advanced := false
	for len(l.mu.slots) > 0 && l.mu.slots[0].state != 0 {
		head := l.mu.slots[0]
		l.mu.slots = l.mu.slots[1:]
		if head.state == 1 {
			l.mu.visible, l.mu.lastTerm = head.TS, head.term
			l.accountLocked(head.TS, head.bytes)
			l.mu.tail.push(head.TS, head.raw)
			advanced = true
		}
		head.raw = nil
	}
	if advanced {
		close(l.mu.changed)
		l.mu.changed = make(chan struct{})
	}
}

// Visible returns the visibility point: every entry <= it is committed, and
// readers see nothing beyond it.
func (l *Log) Visible() bson.Timestamp {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mu.visible
}

// Last returns the newest visible entry's ts and the current term.
func (l *Log) Last() (bson.Timestamp, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mu.visible, l.mu.term
}

// Top returns the newest visible entry's ts and term (zero if empty).
func (l *Log) Top() (bson.Timestamp, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mu.visible, l.mu.lastTerm
}

// First returns the oldest entry's ts (zero if the oplog is empty).
func (l *Log) First() bson.Timestamp {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mu.first
}

// SizeBytes returns the size of the visible entries (BSON bytes).
func (l *Log) SizeBytes() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mu.bytes
}

// Count returns the number of visible entries.
func (l *Log) Count() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mu.count
}

// MaxBytes returns the configured cap.
func (l *Log) MaxBytes() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mu.maxBytes
}

// Wait blocks until an entry newer than after is visible, or ctx ends.
// It is woken by commits; it never polls.
func (l *Log) Wait(ctx context.Context, after bson.Timestamp) error {
	for {
		l.mu.Lock()
		vis, ch := l.mu.visible, l.mu.changed
		l.mu.Unlock()
		if vis.After(after) {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// WaitRetired waits until every timestamp allocated before the call is
// committed or aborted (a reader that then reads up to Visible sees every
// write that had begun), or ctx ends. It is woken by commits and checks
// again at least every 10 ms (an aborted slot wakes no one).
func (l *Log) WaitRetired(ctx context.Context) error {
	l.mu.Lock()
	target := l.mu.last
	l.mu.Unlock()
	for {
		l.mu.Lock()
		done := len(l.mu.slots) == 0 || l.mu.slots[0].TS.After(target)
		ch := l.mu.changed
		l.mu.Unlock()
		if done {
			return nil
		}
		t := time.NewTimer(10 * time.Millisecond)
		select {
		case <-ch:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
		t.Stop()
	}
}

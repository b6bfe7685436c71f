package oplog

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/invariants"
	"github.com/relaydb/relaydb/internal/storage"
)

// truncateBatch bounds the deletes of one entry-by-entry truncation batch.
const truncateBatch = 1000

// maxDropsPerTruncate bounds the ranges one Truncate call drops.
const maxDropsPerTruncate = 10 * markersPerCap

// Truncate deletes the oldest entries while the oplog exceeds its cap,
// never past the visibility point and never the newest visible entry
// (a tailing reader must always find its last position or a newer one).
// It drops whole oldest ranges (markers.go), each with one range deletion;
// only when the oldest range holds the newest visible entry does it delete
// entries one by one. It also writes the accounting checkpoint when one is
// due. It returns the number of entries deleted.
func (l *Log) Truncate() (int, error) {
	l.truncMu.Lock()
	defer l.truncMu.Unlock()
	total := 0
	for i := 0; i < maxDropsPerTruncate; i++ {
		n, err := l.dropOldestRange()
		total += n
		if err != nil {
			return total, err
		}
		if n == 0 {
			break
		}
	}
	for i := 0; i < maxDropsPerTruncate && l.SizeBytes() > l.MaxBytes(); i++ {
		n, err := l.truncateStep()
		total += n
		if err != nil || n == 0 {
			return total, err
		}
	}
	if total == 0 && l.checkpointDue() {
		return 0, l.checkpointNow()
	}
	return total, nil
}

// dropOldestRange deletes the oldest range if the oplog is over its cap and
// the range ends before the visibility point; it returns the entries
// deleted (0 if none). Pebble compacts the range tombstone away on its
// own (its compaction picker weighs range deletions); no explicit compaction.
// TODO(#15): measure whether compacting the dropped span right away
// lowers read cost or space at the cap.
// REQUIRES: l.truncMu.
func (l *Log) dropOldestRange() (int, error) {
	l.mu.Lock()
	full := l.mu.marks.full
	if l.mu.bytes <= l.mu.maxBytes || len(full) == 0 || !full[0].Last.Before(l.mu.visible) {
		l.mu.Unlock()
		return 0, nil
	}
	drop, vis := full[0], l.mu.visible
	cp, appended := l.snapshotLocked(), l.mu.cp.appended
	l.mu.Unlock()
	end := append(storage.OplogKey(drop.Last), 0)
	next, err := l.firstFrom(end, vis)
	if err != nil {
		return 0, err
	}
	cp.Full, cp.First = cp.Full[1:], next
	cp.Bytes, cp.Count = cp.Bytes-drop.Bytes, cp.Count-drop.Count
	b := l.eng.NewBatch()
	defer b.Close()
	lo, _ := storage.OplogBounds()
	if err := b.DeleteRange(lo, end); err != nil {
		return 0, err
	}
	if err := putCheckpoint(b, cp); err != nil {
		return 0, err
	}
	if _, err := l.eng.Commit(b, false); err != nil {
		return 0, fmt.Errorf("oplog: truncate through %v: %w", drop.Last, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.mu.marks.full = l.mu.marks.full[1:]
	l.mu.bytes -= drop.Bytes
	l.mu.count -= drop.Count
	l.mu.first = next
	l.mu.tail.evictBefore(next)
	l.wroteCheckpointLocked(appended)
	return int(drop.Count), nil
}

// firstFrom returns the ts of the first entry at or after key lo and at or
// before vis, which must exist.
func (l *Log) firstFrom(lo []byte, vis bson.Timestamp) (bson.Timestamp, error) {
	it, err := l.eng.NewIter(lo, append(storage.OplogKey(vis), 0))
	if err != nil {
		return bson.Timestamp{}, err
	}
	defer it.Close()
	if !it.First() {
		if err := it.Error(); err != nil {
			return bson.Timestamp{}, err
		}
		return bson.Timestamp{}, fmt.Errorf("oplog: no entry between %x and the visibility point %v", lo, vis)
	}
	ts, _ := storage.OplogTS(it.Key())
	return ts, it.Error()
}

// truncateStep deletes up to truncateBatch oldest entries in one batch, all
// of them in the oldest range (which holds the visibility point: the
// ranges before it were dropped whole). REQUIRES: l.truncMu.
func (l *Log) truncateStep() (int, error) {
	vis := l.Visible()
	lo, _ := storage.OplogBounds()
	it, err := l.eng.NewIter(lo, storage.OplogKey(vis)) // excludes vis itself
	if err != nil {
		return 0, err
	}
	defer it.Close()
	b := l.eng.NewBatch()
	defer b.Close()
	excess := l.SizeBytes() - l.MaxBytes()
	var freed int64
	n := 0
	for ok := it.First(); ok && n < truncateBatch && freed < excess; ok = it.Next() {
		if err := b.Delete(it.Key()); err != nil {
			return 0, err
		}
		freed += int64(len(it.Value()))
		n++
	}
	next := vis
	if it.Valid() {
		next, _ = storage.OplogTS(it.Key())
	}
	if err := it.Error(); err != nil || n == 0 {
		return 0, err
	}
	return n, l.commitStep(b, freed, int64(n), next)
}

// commitStep commits an entry-by-entry deletion of the oldest range's
// first n entries (freed bytes) with the checkpoint after it.
func (l *Log) commitStep(b *storage.Batch, freed, n int64, next bson.Timestamp) error {
	l.mu.Lock()
	cp, appended := l.snapshotLocked(), l.mu.cp.appended
	l.mu.Unlock()
	oldest := &cp.Cur
	if len(cp.Full) > 0 {
		oldest = &cp.Full[0]
	}
	oldest.Bytes, oldest.Count = oldest.Bytes-freed, oldest.Count-n
	cp.Bytes, cp.Count, cp.First = cp.Bytes-freed, cp.Count-n, next
	if err := putCheckpoint(b, cp); err != nil {
		return err
	}
	if _, err := l.eng.Commit(b, false); err != nil {
		return fmt.Errorf("oplog: truncate: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	oldest = &l.mu.marks.cur
	if len(l.mu.marks.full) > 0 {
		oldest = &l.mu.marks.full[0]
	}
	oldest.Bytes, oldest.Count = oldest.Bytes-freed, oldest.Count-n
	l.mu.bytes -= freed
	l.mu.count -= n
	l.mu.first = next
	l.mu.tail.evictBefore(next)
	l.wroteCheckpointLocked(appended)
	return nil
}

// TruncateAfter deletes every entry newer than ts (rollback, and crash
// recovery from an oplog truncate-after point) and moves the allocator and
// the visibility point back to the newest remaining entry. The ranges after
// ts are dropped and the one holding ts is counted again (at most one range
// is read); the checkpoint rides the deleting batch. The caller must
// ensure no slot is in flight (the catalog holds its write lock).
func (l *Log) TruncateAfter(ts bson.Timestamp) (int, error) {
	l.truncMu.Lock()
	defer l.truncMu.Unlock()
	_, hi := storage.OplogBounds()
	it, err := l.eng.NewIter(storage.OplogKey(ts), hi)
	if err != nil {
		return 0, err
	}
	defer it.Close()
	b := l.eng.NewBatch()
	defer b.Close()
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		if t, _ := storage.OplogTS(it.Key()); t == ts {
			continue
		}
		if err := b.Delete(it.Key()); err != nil {
			return 0, err
		}
		n++
	}
	if err := it.Error(); err != nil || n == 0 {
		return 0, err
	}
	acct, err := l.accountThrough(ts)
	if err != nil {
		return 0, err
	}
	if err := putCheckpoint(b, acct.cp); err != nil {
		return 0, err
	}
	l.mu.Lock()
	l.mu.tail.reset(l.mu.visible) // readers go to storage until resetTop
	l.mu.Unlock()
	if _, err := l.eng.Commit(b, false); err != nil {
		return 0, fmt.Errorf("oplog: truncate after %v: %w", ts, err)
	}
	return n, l.resetTop(acct)
}

// truncatedAcct is the accounting of the entries up to a TruncateAfter
// point, and the newest of them.
type truncatedAcct struct {
	cp    checkpoint
	marks markers
	top   *Entry // nil if no entry is left
}

// accountThrough computes the accounting of the entries at or before ts:
// the ranges that end at or before it are kept, the entries after them up
// to ts are read again. REQUIRES: l.truncMu, no slot in flight.
func (l *Log) accountThrough(ts bson.Timestamp) (truncatedAcct, error) {
	l.mu.Lock()
	a := truncatedAcct{marks: l.mu.marks.clone()}
	first := l.mu.first
	l.mu.Unlock()
	lo, _ := storage.OplogBounds()
	if kept := a.marks.keepThrough(ts); !kept.IsZero() {
		lo = append(storage.OplogKey(kept), 0)
	}
	it, err := l.eng.NewIter(lo, append(storage.OplogKey(ts), 0))
	if err != nil {
		return a, err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		t, _ := storage.OplogTS(it.Key())
		a.marks.add(t, int64(len(it.Value())))
	}
	if err := it.Error(); err != nil {
		return a, fmt.Errorf("oplog: recount through %v: %w", ts, err)
	}
	if a.top, err = l.lastAtOrBefore(ts); err != nil {
		return a, err
	}
	bytes, count := a.marks.totals()
	if count == 0 {
		first = bson.Timestamp{}
	}
	a.cp = checkpoint{V: cpVersion, First: first, Bytes: bytes, Count: count, Target: a.marks.target,
		Full: a.marks.clone().full, Cur: a.marks.cur}
	if a.top != nil {
		a.cp.Upto = a.top.TS
	}
	return a, nil
}

// lastAtOrBefore returns the newest entry at or before ts (nil if none).
func (l *Log) lastAtOrBefore(ts bson.Timestamp) (*Entry, error) {
	lo, _ := storage.OplogBounds()
	it, err := l.eng.NewIter(lo, append(storage.OplogKey(ts), 0))
	if err != nil {
		return nil, err
	}
	defer it.Close()
	if !it.Last() {
		return nil, it.Error()
	}
	top, err := Unmarshal(it.Value())
	if err != nil {
		return nil, fmt.Errorf("oplog: new top entry: %w", err)
	}
	return top, nil
}

// resetTop installs the accounting after a truncation of the top and moves
// the allocator and visibility point back to the new top.
func (l *Log) resetTop(a truncatedAcct) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if invariants.Enabled {
		l.checkNoSlotsLocked("TruncateAfter")
	}
	l.mu.marks = a.marks
	l.mu.bytes, l.mu.count, l.mu.first = a.cp.Bytes, a.cp.Count, a.cp.First
	l.wroteCheckpointLocked(l.mu.cp.appended)
	l.mu.last, l.mu.visible, l.mu.lastTerm = bson.Timestamp{}, bson.Timestamp{}, 0
	if a.top != nil {
		l.mu.last, l.mu.visible, l.mu.lastTerm = a.top.TS, a.top.TS, a.top.Term
	}
	l.mu.tail.reset(l.mu.visible)
	return nil
}

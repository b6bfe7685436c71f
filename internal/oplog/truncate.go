package oplog

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/invariants"
	"github.com/relaydb/relaydb/internal/storage"
)

// truncateBatch bounds the deletes of one truncation batch.
const truncateBatch = 1000

// Truncate deletes the oldest entries while the oplog exceeds its cap,
// never past the visibility point and never the newest visible entry
// (a tailing reader must always find its last position or a newer one).
// It returns the number of entries deleted.
func (l *Log) Truncate() (int, error) {
	l.truncMu.Lock()
	defer l.truncMu.Unlock()
	total := 0
	for l.SizeBytes() > l.MaxBytes() {
		n, err := l.truncateStep()
		total += n
		if err != nil || n == 0 {
			return total, err
		}
	}
	return total, nil
}

// truncateStep deletes up to truncateBatch oldest entries in one batch.
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
	var next bson.Timestamp
	n := 0
	for ok := it.First(); ok && n < truncateBatch && freed < excess; ok = it.Next() {
		if err := b.Delete(it.Key()); err != nil {
			return 0, err
		}
		freed += int64(len(it.Value()))
		n++
	}
	if it.Valid() {
		next, _ = storage.OplogTS(it.Key())
	} else {
		next = vis
	}
	if err := it.Error(); err != nil || n == 0 {
		return 0, err
	}
	if _, err := l.eng.Commit(b, false); err != nil {
		return 0, fmt.Errorf("oplog: truncate: %w", err)
	}
	l.mu.Lock()
	l.mu.bytes -= freed
	l.mu.first = next
	l.mu.Unlock()
	return n, nil
}

// TruncateAfter deletes every entry newer than ts (rollback, and crash
// recovery from an oplog truncate-after point) and moves the allocator and
// the visibility point back to the newest remaining entry. The caller must
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
	var freed int64
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		if t, _ := storage.OplogTS(it.Key()); t == ts {
			continue
		}
		if err := b.Delete(it.Key()); err != nil {
			return 0, err
		}
		freed += int64(len(it.Value()))
		n++
	}
	if err := it.Error(); err != nil || n == 0 {
		return 0, err
	}
	if _, err := l.eng.Commit(b, false); err != nil {
		return 0, fmt.Errorf("oplog: truncate after %v: %w", ts, err)
	}
	return n, l.resetTop(freed)
}

// resetTop reloads the newest entry after a truncation of the top.
func (l *Log) resetTop(freed int64) error {
	lo, hi := storage.OplogBounds()
	it, err := l.eng.NewIter(lo, hi)
	if err != nil {
		return err
	}
	defer it.Close()
	var top *Entry
	if it.Last() {
		if top, err = Unmarshal(it.Value()); err != nil {
			return fmt.Errorf("oplog: new top entry: %w", err)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if invariants.Enabled {
		l.checkNoSlotsLocked("TruncateAfter")
	}
	l.mu.bytes -= freed
	l.mu.last, l.mu.visible, l.mu.lastTerm = bson.Timestamp{}, bson.Timestamp{}, 0
	if top != nil {
		l.mu.last, l.mu.visible, l.mu.lastTerm = top.TS, top.TS, top.Term
	} else {
		l.mu.first = bson.Timestamp{}
	}
	return it.Error()
}

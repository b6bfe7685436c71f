package oplog

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

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

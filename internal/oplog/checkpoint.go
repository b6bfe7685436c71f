package oplog

import (
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/storage"
)

// The accounting checkpoint (MongoDB's oplog size storer): the size, count,
// first entry and ranges of the entries up to Upto, stored under
// storage.KeyOplogCheckpoint. Open reads it and scans only the entries
// after Upto, so startup does not depend on the oplog's size.
//
// It is exact after a crash, not approximate: every deletion of oplog
// entries (Truncate, TruncateAfter) writes the checkpoint in the same
// storage batch, an entry is counted only once it is visible (committed,
// so earlier in the WAL than any checkpoint that counts it), and the WAL
// replays a prefix of the commits. What a crash costs is time: Open scans
// the entries appended since the last checkpoint, which Truncate writes
// at least every cpEveryBytes of entries or cpEvery (and Close writes
// one). A checkpoint that does not match the data (its Upto or First
// entry missing, totals that do not add up) is ignored: Open then scans
// the whole oplog once, as it did before checkpoints existed.

// cpVersion is the checkpoint format written.
const cpVersion = 1

// cpEvery bounds the age of the checkpoint when entries are appended
// slowly; cpEveryBytes (one range) bounds the scan at Open otherwise.
const cpEvery = 10 * time.Second

// checkpoint is the stored form.
type checkpoint struct {
	V      int32          `bson:"v"`
	Upto   bson.Timestamp `bson:"upto"`
	First  bson.Timestamp `bson:"first"`
	Bytes  int64          `bson:"bytes"`
	Count  int64          `bson:"count"`
	Target int64          `bson:"target"`
	Full   []rangeMark    `bson:"full"`
	Cur    rangeMark      `bson:"cur"`
}

// cpState is what the Log remembers of checkpoints (under Log.mu).
type cpState struct {
	written       bool      // a checkpoint matching the data exists
	appended      int64     // bytes accounted since the last checkpoint
	at            time.Time // when the last one was written
	scannedAtOpen int       // entries Open scanned (after the checkpoint)
}

// snapshotLocked returns the accounting as a checkpoint. REQUIRES: l.mu.
func (l *Log) snapshotLocked() checkpoint {
	m := l.mu.marks.clone()
	return checkpoint{V: cpVersion, Upto: l.mu.visible, First: l.mu.first, Bytes: l.mu.bytes,
		Count: l.mu.count, Target: m.target, Full: m.full, Cur: m.cur}
}

// putCheckpoint adds cp to b.
func putCheckpoint(b *storage.Batch, cp checkpoint) error {
	raw, err := bson.Marshal(cp)
	if err != nil {
		return fmt.Errorf("oplog: encode checkpoint: %w", err)
	}
	return b.Set(storage.KeyOplogCheckpoint, raw)
}

// wroteCheckpoint records that a checkpoint of the accounting as of
// appendedThen bytes was committed. REQUIRES: l.mu.
func (l *Log) wroteCheckpointLocked(appendedThen int64) {
	l.mu.cp.written = true
	l.mu.cp.appended -= appendedThen
	l.mu.cp.at = time.Now()
}

// Checkpoint writes the accounting checkpoint now (clean shutdown).
func (l *Log) Checkpoint() error {
	l.truncMu.Lock()
	defer l.truncMu.Unlock()
	return l.checkpointNow()
}

// checkpointDue reports whether Truncate should write a checkpoint.
func (l *Log) checkpointDue() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mu.visible.IsZero() && l.mu.cp.written {
		return false
	}
	return !l.mu.cp.written || l.mu.cp.appended >= l.mu.marks.target ||
		(l.mu.cp.appended > 0 && time.Since(l.mu.cp.at) >= cpEvery)
}

// checkpointNow writes the accounting in a batch of its own.
// REQUIRES: l.truncMu.
func (l *Log) checkpointNow() error {
	l.mu.Lock()
	cp, appended := l.snapshotLocked(), l.mu.cp.appended
	l.mu.Unlock()
	b := l.eng.NewBatch()
	defer b.Close()
	if err := putCheckpoint(b, cp); err != nil {
		return err
	}
	if _, err := l.eng.Commit(b, false); err != nil {
		return fmt.Errorf("oplog: write checkpoint: %w", err)
	}
	l.mu.Lock()
	l.wroteCheckpointLocked(appended)
	l.mu.Unlock()
	return nil
}

// loadCheckpoint applies a stored checkpoint that matches the data and
// returns where Open's scan starts: after its Upto, or at the oplog's low
// bound without one. Called by Open only.
func (l *Log) loadCheckpoint() ([]byte, error) {
	lo, _ := storage.OplogBounds()
	raw, ok, err := l.eng.Get(storage.KeyOplogCheckpoint)
	if err != nil || !ok {
		return lo, err
	}
	var cp checkpoint
	if err := bson.Unmarshal(raw, &cp); err != nil || cp.V != cpVersion {
		l.logger.Warn("oplog: ignoring an unreadable size checkpoint", "err", err)
		return lo, nil
	}
	if !l.checkpointMatches(cp) {
		l.logger.Warn("oplog: the size checkpoint does not match the oplog; scanning it", "upto", cp.Upto)
		return lo, nil
	}
	l.mu.first, l.mu.bytes, l.mu.count = cp.First, cp.Bytes, cp.Count
	l.mu.marks.full, l.mu.marks.cur = cp.Full, cp.Cur
	l.mu.cp.written = true
	if cp.Upto.IsZero() {
		return lo, nil
	}
	return append(storage.OplogKey(cp.Upto), 0), nil
}

// checkpointMatches checks cp against itself and the stored entries.
func (l *Log) checkpointMatches(cp checkpoint) bool {
	m := markers{full: cp.Full, cur: cp.Cur}
	if b, c := m.totals(); b != cp.Bytes || c != cp.Count || (c == 0) != cp.First.IsZero() {
		return false
	}
	for _, ts := range []bson.Timestamp{cp.Upto, cp.First} {
		if ts.IsZero() {
			continue
		}
		if _, ok, err := l.eng.Get(storage.OplogKey(ts)); err != nil || !ok {
			return false
		}
	}
	return true
}

package markers

import (
	"fmt"
	"log/slog"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/storage"
)

// TruncateOplogAfter deletes the oplog entries after ts (rollback). Their
// effects on the data stay: the caller undoes them. A crash midway is
// finished by Recover at the next start (the truncate-after point is set
// first, synced). appliedThrough moves back to the new top; minValid is
// raised to the old top, since the data may still hold effects up to it.
func TruncateOplogAfter(cat *catalog.Catalog, ts bson.Timestamp) (int, error) {
	if err := SetOplogTruncateAfter(cat, ts); err != nil {
		return 0, err
	}
	return truncateAfter(cat, ts)
}

// Recover finishes an interrupted truncation: call it right after
// catalog.Open, before anything reads the oplog (MongoDB's replication
// recovery).
func Recover(cat *catalog.Catalog, logger *slog.Logger) error {
	m, err := Read(cat)
	if err != nil || m.TruncateAfter.IsZero() {
		return err
	}
	n, err := truncateAfter(cat, m.TruncateAfter)
	if err != nil {
		return err
	}
	if logger == nil {
		logger = slog.Default()
	}
	logger.Info("replication recovery: truncated the oplog after the truncate-after point",
		"point", m.TruncateAfter, "entries", n)
	return nil
}

// truncateAfter truncates after ts, fixes the markers and clears the
// truncate-after point, in one synced batch under the write lock.
func truncateAfter(cat *catalog.Catalog, ts bson.Timestamp) (int, error) {
	var n int
	_, err := cat.Apply(func(w *catalog.Writer) error {
		var err error
		n, err = truncateIn(cat, w, ts)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("markers: truncate the oplog after %v: %w", ts, err)
	}
	return n, nil
}

// truncateIn truncates the oplog after ts and writes the markers that
// follow from it into w's batch.
func truncateIn(cat *catalog.Catalog, w *catalog.Writer, ts bson.Timestamp) (int, error) {
	m, err := Read(cat)
	if err != nil {
		return 0, err
	}
	oldTS, oldTerm := cat.Oplog().Top()
	n, err := w.TruncateOplogAfter(ts)
	if err != nil {
		return 0, err
	}
	w.Sync()
	if n > 0 {
		top, term := cat.Oplog().Top()
		if oldOT := (oplog.OpTime{TS: oldTS, Term: oldTerm}); m.MinValid.Less(oldOT) {
			if err := putOpTime(w, storage.KeyMinValid, oldOT); err != nil {
				return 0, err
			}
		}
		if newTop := (oplog.OpTime{TS: top, Term: term}); newTop.Less(m.AppliedThrough) {
			if err := PutAppliedThrough(w, newTop); err != nil {
				return 0, err
			}
		}
	}
	return n, w.PutMarker(storage.KeyOplogTruncateAfter, nil)
}

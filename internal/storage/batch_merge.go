package storage

import (
	"fmt"

	"github.com/relaydb/relaydb/internal/invariants"
)

// Merge appends every write of other to b, after b's own (Pebble's
// Batch.Apply of other's representation, re-indexed into b), with the
// document keys (and values) other noted, so that b's commit updates the
// document cache and feeds the insert filters (docmax.go) for them too. other is
// left as it was; the caller still closes it. Writes of other to a key b
// wrote already win (later in the batch). Used to commit batches prepared
// on several goroutines as one (catalog.Writer.Join).
func (b *Batch) Merge(other *Batch) error {
	if other.unlogged != b.unlogged {
		return fmt.Errorf("storage: merge of an unlogged and a logged batch")
	}
	if err := b.b.Apply(other.b, nil); err != nil {
		return fmt.Errorf("storage: merge batch: %w", err)
	}
	b.docKeys = append(b.docKeys, other.docKeys...)
	b.docVals = append(b.docVals, other.docVals...)
	b.valBytes += other.valBytes
	b.clearDocs = b.clearDocs || other.clearDocs
	return nil
}

// NewWriteBatch returns an empty batch that is not indexed: cheaper to
// fill (Merge copies a batch's representation without indexing it), but
// Get and NewIter on it fail. For a batch only written from then on. In
// -tags invariants builds it is indexed all the same: the commit's check
// reads through the batch (batch_invariants.go).
func (e *Engine) NewWriteBatch() *Batch {
	if invariants.Enabled {
		return e.NewBatch()
	}
	return &Batch{b: e.db.NewBatch()}
}

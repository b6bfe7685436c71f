package storage

import (
	"fmt"

	"github.com/cockroachdb/pebble"
)

// NewIter returns an iterator over [lo, hi) as seen through the batch:
// its own writes made so far over the committed state. Writes made to
// the batch after the call are not seen (Pebble's indexed-batch
// iterator). A prepareUnique index's check (catalog) needs it: two
// documents of one batch may share a key.
func (b *Batch) NewIter(lo, hi []byte) (*Iter, error) {
	it, err := b.b.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return nil, fmt.Errorf("storage: new batch iterator: %w", err)
	}
	return &Iter{it: it}, nil
}

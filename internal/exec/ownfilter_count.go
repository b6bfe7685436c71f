package exec

import (
	"github.com/relaydb/relaydb/internal/catalog"
)

// UnownedCounter is an OwnershipFilter that counts the documents of a
// collection it does not own without reading the owned ones (a shard
// reads its orphans through the shard key index), so a count without a
// query filter costs O(orphans), not O(collection). ok is false when it
// cannot (no usable index); the count then scans.
type UnownedCounter interface {
	CountUnowned(col *catalog.Collection, snap *catalog.Snapshot) (n int64, ok bool, err error)
}

// fastCount is the number of documents of col own owns, in snap, from
// the collection's document count: less the unowned ones when own
// filters. ok is false when it cannot be had without a scan.
func fastCount(col *catalog.Collection, snap *catalog.Snapshot, own OwnershipFilter) (n int64, ok bool, err error) {
	var uc UnownedCounter
	if own != nil {
		if uc, ok = own.(UnownedCounter); !ok {
			return 0, false, nil
		}
	}
	if n, ok = countOf(col, snap); !ok || uc == nil {
		return n, ok, nil
	}
	unowned, ok, err := uc.CountUnowned(col, snap)
	if err != nil || !ok {
		return 0, false, err
	}
	return max(n-unowned, 0), true, nil
}

package markers

import (
	"fmt"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/storage"
)

// keyInitialSync is the initial-sync flag under the replication prefix.
// TODO(#4): list it in storage/keys.go with the other markers.
var keyInitialSync = []byte{storage.PrefixRepl, 'i', 'n', 'i', 't', 'S', 'y', 'n', 'c'}

// InitialSyncFlag reports whether an initial sync started and has not
// finished (the node's replicated data cannot be trusted).
func InitialSyncFlag(cat *catalog.Catalog) (bool, error) {
	_, ok, err := cat.Marker(keyInitialSync)
	if err != nil {
		return false, fmt.Errorf("markers: read the initial-sync flag: %w", err)
	}
	return ok, nil
}

// SetInitialSyncFlag durably sets or clears the initial-sync flag.
func SetInitialSyncFlag(cat *catalog.Catalog, on bool) error {
	var v []byte
	if on {
		v = []byte{1}
	}
	_, err := cat.Apply(func(w *catalog.Writer) error {
		w.Sync()
		return w.PutMarker(keyInitialSync, v)
	})
	if err != nil {
		return fmt.Errorf("markers: write the initial-sync flag: %w", err)
	}
	return nil
}

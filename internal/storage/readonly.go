package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrNoStore is returned by a read-only Open of a directory that holds no
// data (missing, empty, or without a Pebble MANIFEST).
var ErrNoStore = errors.New("no relaydb data directory")

// checkStore fails with ErrNoStore unless dir holds a store. A read-only
// Open (tool verify) checks it before taking the directory lock, so a
// mistyped --dbpath leaves nothing behind: no directory, no lock file.
func checkStore(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%w: %s does not exist", ErrNoStore, dir)
	case err != nil:
		return fmt.Errorf("storage: %w", err)
	case !st.IsDir():
		return fmt.Errorf("%w: %s is not a directory", ErrNoStore, dir)
	}
	manifests, err := filepath.Glob(filepath.Join(dir, "MANIFEST-*"))
	if err != nil || len(manifests) == 0 {
		return fmt.Errorf("%w: %s holds no data (no MANIFEST)", ErrNoStore, dir)
	}
	return nil
}

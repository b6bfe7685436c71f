package storage

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestReadOnlyOpenLeavesNothingBehind: a read-only Open of a missing or
// empty directory fails with ErrNoStore and creates nothing (issue #14:
// tool verify --dbpath /missing created the directory and lock files).
func TestReadOnlyOpenLeavesNothingBehind(t *testing.T) {
	base := t.TempDir()
	missing := filepath.Join(base, "missing")
	if _, err := Open(Options{Dir: missing, ReadOnly: true}); !errors.Is(err, ErrNoStore) {
		t.Fatalf("read-only open of a missing dir: %v, want ErrNoStore", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the missing dir was created: %v", err)
	}
	empty := filepath.Join(base, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(Options{Dir: empty, ReadOnly: true}); !errors.Is(err, ErrNoStore) {
		t.Fatalf("read-only open of an empty dir: %v, want ErrNoStore", err)
	}
	if ents, _ := os.ReadDir(empty); len(ents) != 0 {
		t.Fatalf("the empty dir got %d entries, e.g. %s", len(ents), ents[0].Name())
	}
}

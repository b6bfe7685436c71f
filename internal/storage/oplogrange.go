package storage

import "fmt"

// KeyOplogCheckpoint holds the oplog's accounting checkpoint (size, count,
// first entry, truncate markers; internal/oplog/checkpoint.go), written in
// the same batch as every deletion of oplog entries.
var KeyOplogCheckpoint = []byte{PrefixMeta, 'o', 'p', 'l', 'o', 'g', '-', 's', 'i', 'z', 'e'}

// ReadOnly reports whether the engine was opened read-only (nothing may be
// written: the oplog writes no checkpoint).
func (e *Engine) ReadOnly() bool { return e.opts.ReadOnly }

// CompactRange asks Pebble to compact [lo, hi) now (after a range deletion
// of the oldest oplog entries, to drop their data and the tombstone).
func (e *Engine) CompactRange(lo, hi []byte) error {
	if err := e.db.Compact(lo, hi, false); err != nil {
		return fmt.Errorf("storage: compact: %w", err)
	}
	return nil
}

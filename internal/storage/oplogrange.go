package storage

// KeyOplogCheckpoint holds the oplog's accounting checkpoint (size, count,
// first entry, truncate markers; internal/oplog/checkpoint.go), written in
// the same batch as every deletion of oplog entries.
var KeyOplogCheckpoint = []byte{PrefixMeta, 'o', 'p', 'l', 'o', 'g', '-', 's', 'i', 'z', 'e'}

// ReadOnly reports whether the engine was opened read-only (nothing may be
// written: the oplog writes no checkpoint).
func (e *Engine) ReadOnly() bool { return e.opts.ReadOnly }

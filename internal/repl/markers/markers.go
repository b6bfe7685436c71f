// Package markers keeps replication's crash-recovery markers (MongoDB's
// names) under the storage prefix reserved for replication
// (storage.PrefixRepl), written through the catalog's write primitive
// (catalog.Apply):
//
//   - appliedThrough: the last entry the applier applied. Written in the
//     same batch as that entry (PutAppliedThrough), so it always equals the
//     local oplog's top while the node is a secondary (a primary's own
//     writes leave it).
//   - minValid: the node's data is consistent only once it has applied
//     through minValid (initial sync and rollback set it; TruncateOplogAfter
//     raises it when it truncates entries whose effects may be present). A
//     node with Top() < minValid must not become primary nor serve majority
//     reads.
//   - oplogTruncateAfterPoint: when set, entries after it may be
//     incomplete; Recover deletes them at startup, before anything reads
//     the oplog.
//   - the initial-sync flag: set before an initial sync drops or writes
//     data, cleared once the data is consistent (flag.go).
//
// Each OpTime marker is ts(8B BE: T<<32|I) + term(8B BE); the truncate
// point has term 0. Marker writes outside an apply batch are synced.
//
// It is a package of its own, not part of package repl, because the
// applier, rollback and initial sync write markers and package repl
// imports them: markers sits below all three.
package markers

import (
	"encoding/binary"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/storage"
)

// Markers are the replication crash-recovery markers.
type Markers struct {
	MinValid       oplog.OpTime
	AppliedThrough oplog.OpTime
	TruncateAfter  bson.Timestamp // zero: not set
}

func encodeOpTime(ot oplog.OpTime) []byte {
	v := make([]byte, 16)
	binary.BigEndian.PutUint64(v, uint64(ot.TS.T)<<32|uint64(ot.TS.I))
	binary.BigEndian.PutUint64(v[8:], uint64(ot.Term))
	return v
}

func decodeOpTime(v []byte) oplog.OpTime {
	if len(v) != 16 {
		return oplog.OpTime{}
	}
	ts := binary.BigEndian.Uint64(v)
	return oplog.OpTime{TS: bson.Timestamp{T: uint32(ts >> 32), I: uint32(ts)},
		Term: int64(binary.BigEndian.Uint64(v[8:]))}
}

// putOpTime writes one marker into w's batch; the zero OpTime deletes it.
func putOpTime(w *catalog.Writer, key []byte, ot oplog.OpTime) error {
	if ot.IsZero() {
		return w.PutMarker(key, nil)
	}
	return w.PutMarker(key, encodeOpTime(ot))
}

// PutAppliedThrough sets appliedThrough in w's batch (the batch that
// applies that entry).
func PutAppliedThrough(w *catalog.Writer, ot oplog.OpTime) error {
	return putOpTime(w, storage.KeyAppliedThrough, ot)
}

// Read reads the markers.
func Read(cat *catalog.Catalog) (Markers, error) {
	var m Markers
	for _, f := range []struct {
		key []byte
		dst *oplog.OpTime
	}{{storage.KeyMinValid, &m.MinValid}, {storage.KeyAppliedThrough, &m.AppliedThrough}} {
		v, _, err := cat.Marker(f.key)
		if err != nil {
			return Markers{}, fmt.Errorf("markers: read: %w", err)
		}
		*f.dst = decodeOpTime(v)
	}
	v, _, err := cat.Marker(storage.KeyOplogTruncateAfter)
	if err != nil {
		return Markers{}, fmt.Errorf("markers: read: %w", err)
	}
	m.TruncateAfter = decodeOpTime(v).TS
	return m, nil
}

// SetMinValid durably sets minValid (zero clears it).
func SetMinValid(cat *catalog.Catalog, ot oplog.OpTime) error {
	return setSynced(cat, storage.KeyMinValid, ot)
}

// SetOplogTruncateAfter durably sets the oplog truncate-after point (zero
// clears it): whoever writes entries in several batches sets it first.
func SetOplogTruncateAfter(cat *catalog.Catalog, ts bson.Timestamp) error {
	return setSynced(cat, storage.KeyOplogTruncateAfter, oplog.OpTime{TS: ts})
}

// setSynced writes one marker in a synced batch of its own.
func setSynced(cat *catalog.Catalog, key []byte, ot oplog.OpTime) error {
	_, err := cat.Apply(func(w *catalog.Writer) error {
		w.Sync()
		return putOpTime(w, key, ot)
	})
	if err != nil {
		return fmt.Errorf("markers: write %s: %w", key[1:], err)
	}
	return nil
}

// Clear deletes minValid, appliedThrough and the truncate-after point in
// w's batch (a reset for initial sync: the state of a new member).
func Clear(w *catalog.Writer) error {
	for _, key := range [][]byte{storage.KeyMinValid, storage.KeyAppliedThrough, storage.KeyOplogTruncateAfter} {
		if err := w.PutMarker(key, nil); err != nil {
			return err
		}
	}
	return nil
}

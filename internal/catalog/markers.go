package catalog

// Crash-recovery markers (MongoDB's names), under storage.PrefixRepl:
//
//   - appliedThrough: the last entry ApplyBatch applied. Written in the
//     same batch as that entry, so it always equals the local oplog's top
//     while the node is a secondary (a primary's own writes leave it).
//   - minValid: the node's data is consistent only once it has applied
//     through minValid (the coordinator sets it after an initial sync or a
//     rollback; recovery raises it when it truncates entries whose effects
//     may be present). A node with Top() < minValid must not become primary
//     nor serve majority reads.
//   - oplogTruncateAfterPoint: when set, entries after it may be incomplete;
//     Open deletes them (recoverOplog) before anything reads the oplog.
//
// Each marker is ts(8B BE: T<<32|I) + term(8B BE); the truncate point has
// term 0. Marker writes outside an apply batch are synced.

import (
	"encoding/binary"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

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

// putOpTime writes one marker into b; the zero OpTime deletes it.
func putOpTime(b *storage.Batch, key []byte, ot oplog.OpTime) error {
	if ot.IsZero() {
		return b.Delete(key)
	}
	return b.Set(key, encodeOpTime(ot))
}

// Markers reads the markers.
func (c *Catalog) Markers() (Markers, error) {
	var m Markers
	for _, f := range []struct {
		key []byte
		dst *oplog.OpTime
	}{{storage.KeyMinValid, &m.MinValid}, {storage.KeyAppliedThrough, &m.AppliedThrough}} {
		v, _, err := c.eng.Get(f.key)
		if err != nil {
			return Markers{}, fmt.Errorf("catalog: read markers: %w", err)
		}
		*f.dst = decodeOpTime(v)
	}
	v, _, err := c.eng.Get(storage.KeyOplogTruncateAfter)
	if err != nil {
		return Markers{}, fmt.Errorf("catalog: read markers: %w", err)
	}
	m.TruncateAfter = decodeOpTime(v).TS
	return m, nil
}

// SetMinValid durably sets minValid (zero clears it).
func (c *Catalog) SetMinValid(ot oplog.OpTime) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	return c.setMarkerLocked(storage.KeyMinValid, ot)
}

// SetOplogTruncateAfter durably sets the oplog truncate-after point (zero
// clears it): whoever writes entries in several batches sets it first.
func (c *Catalog) SetOplogTruncateAfter(ts bson.Timestamp) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	return c.setMarkerLocked(storage.KeyOplogTruncateAfter, oplog.OpTime{TS: ts})
}

// setMarkerLocked writes one marker in a synced batch. REQUIRES: c.writeMu.
func (c *Catalog) setMarkerLocked(key []byte, ot oplog.OpTime) error {
	b := c.eng.NewBatch()
	defer b.Close()
	if err := putOpTime(b, key, ot); err != nil {
		return err
	}
	if _, err := c.eng.Commit(b, true); err != nil {
		return fmt.Errorf("catalog: write marker: %w", err)
	}
	return nil
}

// TruncateOplogAfter deletes the oplog entries after ts (rollback). Their
// effects on the data stay: the caller undoes them. A crash midway is
// finished by the next Open (the truncate-after point is set first).
// appliedThrough moves back to the new top; minValid is raised to the old
// top, since the data may still hold effects up to it.
func (c *Catalog) TruncateOplogAfter(ts bson.Timestamp) (int, error) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if err := c.setMarkerLocked(storage.KeyOplogTruncateAfter, oplog.OpTime{TS: ts}); err != nil {
		return 0, err
	}
	return c.truncateAfterLocked(ts)
}

// truncateAfterLocked truncates after ts, fixes the markers and clears the
// truncate-after point. REQUIRES: c.writeMu.
func (c *Catalog) truncateAfterLocked(ts bson.Timestamp) (int, error) {
	m, err := c.Markers()
	if err != nil {
		return 0, err
	}
	oldTS, oldTerm := c.log.Top()
	n, err := c.log.TruncateAfter(ts)
	if err != nil {
		return 0, fmt.Errorf("catalog: truncate oplog after %v: %w", ts, err)
	}
	b := c.eng.NewBatch()
	defer b.Close()
	if n > 0 {
		top, term := c.log.Top()
		if oldOT := (oplog.OpTime{TS: oldTS, Term: oldTerm}); m.MinValid.Less(oldOT) {
			if err := putOpTime(b, storage.KeyMinValid, oldOT); err != nil {
				return 0, err
			}
		}
		if newTop := (oplog.OpTime{TS: top, Term: term}); newTop.Less(m.AppliedThrough) {
			if err := putOpTime(b, storage.KeyAppliedThrough, newTop); err != nil {
				return 0, err
			}
		}
	}
	if err := b.Delete(storage.KeyOplogTruncateAfter); err != nil {
		return 0, err
	}
	if _, err := c.eng.Commit(b, true); err != nil {
		return 0, fmt.Errorf("catalog: clear truncate-after point: %w", err)
	}
	return n, nil
}

// recoverOplog finishes an interrupted truncation at Open.
func (c *Catalog) recoverOplog() error {
	m, err := c.Markers()
	if err != nil || m.TruncateAfter.IsZero() {
		return err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	n, err := c.truncateAfterLocked(m.TruncateAfter)
	if err != nil {
		return err
	}
	c.logger.Info("replication recovery: truncated the oplog after the truncate-after point",
		"point", m.TruncateAfter, "entries", n)
	return nil
}

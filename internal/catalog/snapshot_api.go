package catalog

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/storage"
)

// commitTracked commits b and records ts (the newest oplog entry in b;
// zero for unreplicated writes) for snapshot bookkeeping, holding the
// snapshot lock across both. REQUIRES: c.writeMu.
func (c *Catalog) commitTracked(b *storage.Batch, ts bson.Timestamp) (uint64, error) {
	m := &c.snaps
	m.mu.Lock()
	defer m.mu.Unlock()
	seq, err := c.eng.Commit(b, false)
	if err == nil && !ts.IsZero() {
		m.committedLocked(c.eng, ts)
	}
	return seq, err
}

// SetCommitPoint tells the catalog the replication commit point: every
// write with ts <= it is majority-committed. The first call starts
// snapshot tracking (replica sets). It never blocks on writers for long:
// it waits at most for one commit in flight.
func (c *Catalog) SetCommitPoint(ts bson.Timestamp) {
	m := &c.snaps
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.enabled && m.lastTS.IsZero() {
		m.lastTS, _ = c.log.Top() // nothing committed since Open
	}
	m.advanceLocked(c.eng, ts)
}

// MajoritySnapshot returns the newest majority-committed snapshot with a
// reference the caller must Release; ok is false before one exists (no
// commit point yet) or on a standalone (never tracked).
func (c *Catalog) MajoritySnapshot() (*Snapshot, bool) {
	m := &c.snaps
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.current == nil {
		return nil, false
	}
	m.current.refs++
	return m.current, true
}

// WaitMajoritySnapshot waits until a majority-committed snapshot tagged >=
// ts exists (zero ts: any) and returns it referenced, or ctx's error. It is
// woken by commit-point advances and commits, never by polling.
func (c *Catalog) WaitMajoritySnapshot(ctx context.Context, ts bson.Timestamp) (*Snapshot, error) {
	m := &c.snaps
	for {
		m.mu.Lock()
		if s := m.current; s != nil && !s.ts.Before(ts) {
			s.refs++
			m.mu.Unlock()
			return s, nil
		}
		ch := m.waitChanLocked()
		m.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// WaitApplied waits until the writes up to ts are committed and visible to
// reads on this node (a primary's own writes, a secondary's applied
// entries), or ctx ends.
func (c *Catalog) WaitApplied(ctx context.Context, ts bson.Timestamp) error {
	m := &c.snaps
	for {
		m.mu.Lock()
		last := m.lastTS
		if last.IsZero() {
			last, _ = c.log.Top()
		}
		if !last.Before(ts) {
			m.mu.Unlock()
			return nil
		}
		ch := m.waitChanLocked()
		m.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// CommittedSnapshotTS returns the majority snapshot's ts (zero if none).
func (c *Catalog) CommittedSnapshotTS() bson.Timestamp {
	m := &c.snaps
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.current == nil {
		return bson.Timestamp{}
	}
	return m.current.ts
}

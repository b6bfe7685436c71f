package catalog

// Snapshot reads at a cluster time (readConcern {level: "snapshot",
// atClusterTime}): the catalog keeps the last maxRingSnapshots majority
// snapshots that were replaced as the commit point moved (snapMgr.ring),
// so a snapshot session's later reads find the point in time its first
// read was given. Older times are gone (SnapshotUnavailable).
//
// Invariant: ring holds former majority snapshots, ascending by ts, each
// still owned by the manager (never rolled back: they are majority-
// committed); the oldest is disowned when the ring is full. The ring is
// kept only once a snapshot read asked for it (KeepSnapshotHistory), so
// other workloads pin no old Pebble versions.

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// maxRingSnapshots bounds the former majority snapshots kept.
// TODO(#14): bound by age (MongoDB's minSnapshotHistoryWindowInSeconds,
// 300 s) rather than by count.
const maxRingSnapshots = 64

// retireLocked keeps s, a majority snapshot being replaced, in the ring.
// REQUIRES: mu.
func (m *snapMgr) retireLocked(s *Snapshot) {
	if !m.keepRing {
		s.disown()
		return
	}
	m.ring = append(m.ring, s)
	if len(m.ring) > maxRingSnapshots {
		m.ring[0].disown()
		m.ring[0] = nil
		m.ring = m.ring[1:]
	}
}

// closeRingLocked disowns every ring snapshot (the catalog closes).
// REQUIRES: mu.
func (m *snapMgr) closeRingLocked() {
	for _, s := range m.ring {
		s.disown()
		s.refs = 0
		s.maybeCloseLocked()
	}
	m.ring = nil
}

// KeepSnapshotHistory starts keeping former majority snapshots for
// SnapshotAt (a snapshot read asks for it before it takes its snapshot).
func (c *Catalog) KeepSnapshotHistory() {
	c.snaps.mu.Lock()
	c.snaps.keepRing = true
	c.snaps.mu.Unlock()
}

// SnapshotAt returns, referenced, a majority snapshot holding exactly the
// writes with ts <= at: the newest kept snapshot tagged <= at when no
// oplog entry lies between its tag and at. The caller waits first for a
// majority snapshot tagged >= at (WaitMajoritySnapshot). Errors:
// SnapshotUnavailable when at is older than every kept snapshot or falls
// where none holds exactly its state.
func (c *Catalog) SnapshotAt(at bson.Timestamp) (*Snapshot, error) {
	m := &c.snaps
	m.mu.Lock()
	var best *Snapshot
	for _, s := range append(append([]*Snapshot(nil), m.ring...), m.current) {
		if s != nil && !s.ts.After(at) {
			best = s
		}
	}
	if best != nil {
		best.refs++
	}
	m.mu.Unlock()
	if best == nil {
		return nil, errSnapshotGone(at)
	}
	if best.ts != at {
		next, err := c.log.Read(best.ts, false, 1)
		if err != nil || (len(next) > 0 && !next[0].TS.After(at)) {
			best.Release()
			return nil, errSnapshotGone(at)
		}
	}
	return best, nil
}

func errSnapshotGone(at bson.Timestamp) error {
	return mongoerr.New(mongoerr.SnapshotUnavailable, "Read timestamp Timestamp(%d, %d) is older than the oldest available timestamp.", at.T, at.I)
}

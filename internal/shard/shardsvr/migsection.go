package shardsvr

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// A migration's critical section on the donor covers one range, not the
// namespace (MongoDB blocks the whole collection): while it is held,
//   - a write (insert, update, delete, findAndModify) whose shard key
//     targets may fall in the range waits; its target is computed from
//     the documents inserted and the statements' filters with the routing
//     table relabelled so that only the migrating chunk has a "shard" of
//     its own, so a filter the table cannot target waits as well;
//   - reads and writes elsewhere go on: the donor still has every
//     document of the range, and a read admitted after the commit checks
//     its version against the new metadata;
//   - entering returns once every versioned operation admitted before it
//     has finished (operations admitted later cannot touch the range), so
//     every write to the range is in the oplog the recipient catches up
//     from;
//   - exiting forgets the namespace's filtering metadata: the writes that
//     waited check their version against the new placement and get
//     StaleConfig, and the router retargets them to the recipient.

// migrating and elsewhere label the relabelled table's chunks.
const (
	migrating = "\x00migrating"
	elsewhere = "\x00elsewhere"
)

// migSection is a held range section.
type migSection struct {
	view    *routing.ChunkManager // the table with the range alone labelled migrating
	p       key.Pattern
	held    chan struct{} // closed by exit
	gen     uint64        // operations admitted with an older generation are waited for
	oldLeft int           // those still running
	drained chan struct{} // closed when oldLeft reaches 0
	lease   *time.Timer
}

// admitLocked counts an admitted operation and returns its generation.
func (g *nsGuard) admitLocked() uint64 { return g.gen }

// finishLocked uncounts an operation of generation gen.
func (g *nsGuard) finishLocked(gen uint64) {
	if m := g.mig; m != nil && gen < m.gen {
		m.oldLeft--
		if m.oldLeft == 0 {
			close(m.drained)
		}
	}
}

// EnterRangeSection holds the migration section of [lo, hi) of ns (a
// chunk of cm) for at most lease and waits until the versioned operations
// admitted before have finished.
func (s *State) EnterRangeSection(ctx context.Context, cm *routing.ChunkManager, lo, hi bson.D, lease time.Duration) error {
	ns := cm.Collection().NS
	view, err := relabel(cm, lo, hi)
	if err != nil {
		return err
	}
	cs := &s.crit
	cs.mu.Lock()
	g := cs.guard(ns)
	if g.mig != nil {
		cs.mu.Unlock()
		return mongoerr.New(mongoerr.ConflictingOperationInProgress, "a migration's critical section of %s is already held", ns)
	}
	g.gen++
	m := &migSection{view: view, p: cm.Pattern(), held: make(chan struct{}), gen: g.gen, oldLeft: g.inflight, drained: make(chan struct{})}
	if m.oldLeft == 0 {
		close(m.drained)
	}
	g.mig = m
	m.lease = time.AfterFunc(min(max(lease, time.Second), maxLease), func() { s.exitRange(ns, m, "lease expired") })
	cs.mu.Unlock()
	select {
	case <-m.drained:
		s.opts.Logger.Info("migration critical section entered", "ns", ns, "range", routing.Chunk{Min: lo, Max: hi}.Range())
		return nil
	case <-ctx.Done():
		s.exitRange(ns, m, "not entered in time")
		return mongoerr.New(mongoerr.ExceededTimeLimit, "timed out waiting for the operations on %s to finish", ns)
	}
}

// ExitRangeSection releases ns's migration section (no-op when none) and
// forgets ns's filtering metadata.
func (s *State) ExitRangeSection(ns string) {
	s.crit.mu.Lock()
	var m *migSection
	if g := s.crit.byNS[ns]; g != nil {
		m = g.mig
	}
	s.crit.mu.Unlock()
	s.exitRange(ns, m, "exited")
}

func (s *State) exitRange(ns string, m *migSection, why string) {
	cs := &s.crit
	cs.mu.Lock()
	g := cs.byNS[ns]
	released := g != nil && m != nil && g.mig == m
	if released {
		m.lease.Stop()
		close(m.held)
		g.mig = nil
		if g.inflight == 0 && g.held == nil {
			delete(cs.byNS, ns)
		}
	}
	cs.mu.Unlock()
	s.forget(ns)
	if released {
		s.opts.Logger.Info("migration critical section released", "ns", ns, "why", why)
	}
}

// relabel returns cm with [lo, hi) alone owned by migrating.
func relabel(cm *routing.ChunkManager, lo, hi bson.D) (*routing.ChunkManager, error) {
	chunks := cm.Chunks()
	out := make([]routing.Chunk, len(chunks))
	found := false
	for i, c := range chunks {
		c.Shard = elsewhere
		if key.Compare(c.Min, lo) == 0 && key.Compare(c.Max, hi) == 0 {
			c.Shard, found = migrating, true
		}
		out[i] = c
	}
	if !found {
		return nil, mongoerr.New(mongoerr.ConflictingOperationInProgress, "%s is not a chunk of %s", routing.Chunk{Min: lo, Max: hi}.Range(), cm.Collection().NS)
	}
	return routing.New(cm.Collection(), out)
}

// HoldWrites holds a section of every write to ns for at most lease,
// without waiting for anything: a new primary calls it at step-up, before
// it accepts writes, for a migration its predecessor left undecided, so
// no write lands on the range before the recovery knows where it is. A
// section already held is kept.
func (s *State) HoldWrites(ns string, lease time.Duration) {
	cs := &s.crit
	cs.mu.Lock()
	defer cs.mu.Unlock()
	g := cs.guard(ns)
	if g.mig != nil {
		return
	}
	g.gen++
	m := &migSection{held: make(chan struct{}), gen: g.gen, drained: make(chan struct{})}
	close(m.drained)
	g.mig = m
	m.lease = time.AfterFunc(min(max(lease, time.Second), maxLease), func() { s.exitRange(ns, m, "lease expired") })
	s.opts.Logger.Info("writes held until the migration is recovered", "ns", ns)
}

// blocks reports whether cmd may write to the section's range (any write,
// for a section held without a routing table: HoldWrites).
func (m *migSection) blocks(cmd bson.D) bool {
	if len(cmd) == 0 {
		return false
	}
	if m.view == nil {
		switch cmd[0].Key {
		case "insert", "update", "delete", "findAndModify", "findandmodify":
			return true
		}
		return false
	}
	switch cmd[0].Key {
	case "insert":
		return m.anyDoc(cmd, "documents", func(d bson.D) bool { return m.keyIn(d) })
	case "update":
		return m.anyDoc(cmd, "updates", m.stmtTouches)
	case "delete":
		return m.anyDoc(cmd, "deletes", m.stmtTouches)
	case "findAndModify", "findandmodify":
		q, _ := bsonx.Get(cmd, "query")
		qd, _ := q.(bson.D)
		return m.filterTouches(qd)
	}
	return false
}

func (m *migSection) anyDoc(cmd bson.D, field string, touches func(bson.D) bool) bool {
	v, _ := bsonx.Get(cmd, field)
	arr, ok := v.(bson.A)
	if !ok {
		return true // malformed or a document sequence not seen: be safe
	}
	for _, e := range arr {
		d, ok := e.(bson.D)
		if !ok || touches(d) {
			return true
		}
	}
	return false
}

// keyIn reports whether an inserted document's key is in the range (one
// without a valid key cannot be inserted anyway: let it fail).
func (m *migSection) keyIn(doc bson.D) bool {
	k, err := m.p.Extract(doc)
	if err != nil {
		return false
	}
	c, err := m.view.FindChunk(k)
	return err != nil || c.Shard == migrating
}

// stmtTouches reports whether an update or delete statement's filter
// may match a document of the range (an upsert inserts one matching it).
func (m *migSection) stmtTouches(stmt bson.D) bool {
	q, _ := bsonx.Get(stmt, "q")
	qd, _ := q.(bson.D)
	return m.filterTouches(qd)
}

func (m *migSection) filterTouches(filter bson.D) bool {
	shards, _ := m.view.Target(filter)
	for _, s := range shards {
		if s == migrating {
			return true
		}
	}
	return false
}

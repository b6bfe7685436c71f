package shardsvr

import (
	"context"
	"fmt"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// The donor's side of a migration's data transfer (MongoDB's
// MigrationChunkClonerSource, answering _migrateClone and _transferMods):
//   - the clone is one point-in-time scan taken after the oplog's
//     visibility point V was read, so every write at or before V is in
//     it: of the shard key index between the range's bounds (the range
//     deleter's rangeIndex), or of the whole collection without one; it
//     yields the documents whose shard key is in the range, in batches of
//     bounded size;
//   - the mods are the oplog entries of the namespace after V, read in
//     order: each names a document (_id), and the reply carries that
//     document as it is now when it is in the range ("reload") or its _id
//     when it is not ("deleted"). Applying replies in order converges the
//     recipient on the donor's range whatever happened in between, so a
//     document written twice, or both cloned and modified, is fine;
//   - in the critical section the last call first waits until every
//     write that had begun is retired in the oplog, so nothing admitted
//     before the section is missed;
//   - memory is bounded: a reply holds at most cloneBatchBytes of
//     documents, or one document bigger than that; ids read beyond it
//     wait in a queue of at most maxPendingIDs before more of the oplog
//     is read.

const (
	cloneBatchBytes = 8 << 20
	maxPendingIDs   = 20000
	oplogReadBatch  = 512
)

// CloneSource is one migration's donor side. Safe for concurrent use.
type CloneSource struct {
	ns     string
	coll   *catalog.Collection
	log    *oplog.Log
	p      key.Pattern
	lo, hi bson.D

	mu      sync.Mutex
	it      catalog.DocIterator // nil once the clone is done
	carry   bson.Raw            // a document read that did not fit the last batch
	after   bson.Timestamp      // mods are read after this
	pending []any               // ids read from the oplog, not yet sent
	queued  map[string]bool     // pending, by canonical id
	stats   CloneStats
}

// CloneStats count what a source sent.
type CloneStats struct {
	Docs, Bytes, Reloaded, Deleted int64
}

// NewCloneSource starts the transfer of [lo, hi) of ns (pattern p).
func NewCloneSource(cat *catalog.Catalog, ns string, p key.Pattern, lo, hi bson.D) (*CloneSource, error) {
	db, name := splitNS(ns)
	coll := cat.Collection(db, name)
	if coll == nil {
		return nil, mongoerr.New(mongoerr.NamespaceNotFound, "the donor has no collection %s", ns)
	}
	s := &CloneSource{ns: ns, coll: coll, log: cat.Oplog(), p: p, lo: lo, hi: hi, queued: map[string]bool{}}
	s.after = s.log.Visible()
	if idx := rangeIndex(coll, p); idx != nil {
		blo, bhi := rangeBytes(lo, hi)
		s.it = coll.ScanIndex(idx, blo, bhi, false)
	} else {
		s.it = coll.Scan(false) // no usable shard key index: every document is looked at
	}
	return s, nil
}

// Close releases the scan.
func (s *CloneSource) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.it != nil {
		s.it.Close()
		s.it = nil
	}
}

// Stats returns what was sent so far.
func (s *CloneSource) Stats() CloneStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

func (s *CloneSource) inRange(d bson.D) bool {
	k, err := s.p.Extract(d)
	return err == nil && routing.Chunk{Min: s.lo, Max: s.hi}.Contains(k)
}

// NextClone returns the next batch of the range's documents; an empty
// batch means the clone is done.
func (s *CloneSource) NextClone() ([]bson.Raw, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []bson.Raw
	size := 0
	if s.carry != nil {
		out, size, s.carry = append(out, s.carry), len(s.carry), nil
	}
	for s.it != nil && size < cloneBatchBytes {
		raw, ok := s.it.Next()
		if !ok {
			err := s.it.Err()
			s.it.Close()
			s.it = nil
			if err != nil {
				return nil, fmt.Errorf("clone scan of %s: %w", s.ns, err)
			}
			break
		}
		d, err := bsonx.Decode(raw)
		if err != nil {
			return nil, fmt.Errorf("clone scan of %s: %w", s.ns, err)
		}
		if !s.inRange(d) {
			continue
		}
		if len(out) > 0 && size+len(raw) > cloneBatchBytes {
			s.carry = raw // the next batch starts with it: a reply stays under the cap or holds one document
			break
		}
		out = append(out, raw)
		size += len(raw)
	}
	s.stats.Docs += int64(len(out))
	s.stats.Bytes += int64(size)
	return out, nil
}

// Mods is one _transferMods reply: documents to write as they are and
// _ids to delete, and whether more is known to be waiting.
type Mods struct {
	Reload  []bson.Raw
	Deleted []any
	Size    int
	More    bool
}

// NextMods returns the changes to the range since the last call. final
// (the critical section is held) first waits until every write that had
// begun is in the oplog.
func (s *CloneSource) NextMods(ctx context.Context, final bool) (Mods, error) {
	if final {
		if err := s.log.WaitRetired(ctx); err != nil {
			return Mods{}, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.readOplog(); err != nil {
		return Mods{}, err
	}
	var m Mods
	for len(s.pending) > 0 && m.Size < cloneBatchBytes {
		id := s.pending[0]
		s.pending = s.pending[1:]
		delete(s.queued, key.FormatValue(id))
		raw, found, err := s.coll.FindByID(id)
		if err != nil {
			return Mods{}, fmt.Errorf("transferMods read of %s: %w", s.ns, err)
		}
		if found {
			d, err := bsonx.Decode(raw)
			if err != nil {
				return Mods{}, err
			}
			if s.inRange(d) {
				if m.Size > 0 && m.Size+len(raw) > cloneBatchBytes {
					s.requeue(id) // the next reply starts with it
					break
				}
				m.Reload, m.Size = append(m.Reload, raw), m.Size+len(raw)
				continue
			}
		}
		m.Deleted = append(m.Deleted, id)
		m.Size += 32
	}
	m.More = len(s.pending) > 0 || s.log.Visible().After(s.after)
	s.stats.Reloaded += int64(len(m.Reload))
	s.stats.Deleted += int64(len(m.Deleted))
	return m, nil
}

// requeue puts id back at the head of the queue. REQUIRES: s.mu.
func (s *CloneSource) requeue(id any) {
	s.queued[key.FormatValue(id)] = true
	s.pending = append([]any{id}, s.pending...)
}

// readOplog queues the ids of the namespace's entries after s.after, up
// to maxPendingIDs. REQUIRES: s.mu.
func (s *CloneSource) readOplog() error {
	for len(s.pending) < maxPendingIDs {
		entries, err := s.log.Read(s.after, false, oplogReadBatch)
		if err != nil {
			return fmt.Errorf("transferMods oplog read: %w", err)
		}
		if len(entries) == 0 {
			return nil
		}
		for _, e := range entries {
			if err := s.queueEntry(e); err != nil {
				return err
			}
			s.after = e.TS
			if len(s.pending) >= maxPendingIDs {
				return nil
			}
		}
	}
	return nil
}

// queueEntry queues the id an entry of the namespace names; a drop or
// rename of the namespace ends the migration.
func (s *CloneSource) queueEntry(e *oplog.Entry) error {
	if e.Op == oplog.OpCommand {
		db, _ := splitNS(s.ns)
		if e.NS == db+".$cmd" && len(e.O) > 0 && (e.O[0].Key == "drop" || e.O[0].Key == "renameCollection") {
			_, name := splitNS(s.ns)
			if e.O[0].Value == name || e.O[0].Value == s.ns {
				return mongoerr.New(mongoerr.Interrupted, "%s was dropped or renamed during the migration", s.ns)
			}
		}
		return nil
	}
	if e.NS != s.ns {
		return nil
	}
	var idDoc bson.D
	switch e.Op {
	case oplog.OpInsert, oplog.OpDelete:
		idDoc = e.O
		if e.ORaw != nil {
			d, err := bsonx.Decode(e.ORaw)
			if err != nil {
				return err
			}
			idDoc = d
		}
	case oplog.OpUpdate:
		idDoc = e.O2
	default:
		return nil
	}
	id, ok := bsonx.Get(idDoc, "_id")
	if !ok {
		return nil
	}
	k := key.FormatValue(id)
	if !s.queued[k] {
		s.queued[k] = true
		s.pending = append(s.pending, id)
	}
	return nil
}

package catalog

// The write-batch primitive: Apply runs a function with a Writer under the
// catalog's write lock and commits what it wrote as ONE storage batch.
// Replication uses it (repl/applier, repl/markers, repl/rollback,
// repl/initialsync), appending the entries its primary wrote
// (AppendOplog, ReserveAt); the primary's own DDL (CreateCollection,
// DropCollection, DropDatabase, RenameCollection, CreateIndexes,
// DropIndexes) runs the same Writer DDL methods and appends the entries
// it allocates (appendEntry, Reserve), so one code path changes the
// catalog. The primary's document writes (Insert, Update, Delete) build
// their batch in write.go and commit it through the same Writer.end, so
// every write commits one way. See the package doc for the invariants it
// keeps.

import (
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/storage"
)

// Writer is one write batch being assembled under the catalog's write lock
// (see Apply). Its methods add to the batch; nothing is visible (to reads,
// nor in the in-memory catalog) until Apply commits it, and nothing is if
// fn or the commit fails. A Writer must not be used after fn returns.
//
// A collection may be changed in one batch either by document writes or by
// one DDL call (create, drop, rename, index create/drop), not both.
type Writer struct {
	c       *Catalog
	b       *storage.Batch
	docs    map[uint32]*write // document writes per collection id (counters, multikey)
	dirty   map[uint32]bool   // collections whose documents changed
	ddl     map[uint32]bool   // collections changed by DDL in this batch
	publish []func()          // in-memory catalog changes, run once committed (under c.mu)
	slots   []*oplog.Slot     // oplog entries appended, in ts order
	lastTS  bson.Timestamp    // ts of the newest appended entry
	sync    bool
	read    *readCache // the last document read (PutDocument after Document reads once)
	// unlogged: documents written without oplog entries on purpose (Unlogged).
	unlogged bool
	// relax is the caller's set of indexes to rebuild (RelaxUnique; nil:
	// unique constraints are enforced); relaxed, the batch's conflicts,
	// added to relax once it commits.
	relax, relaxed IndexSet
}

// Apply runs fn with a Writer under the catalog's write lock and commits
// everything fn wrote as one storage batch; WriteResult names the newest
// oplog entry fn appended (zero TS if none) and the commit's sequence. If
// fn returns an error nothing fn wrote to the batch is committed (an index
// build's entries for an unpublished index may remain: invisible, as after
// a failed CreateIndexes). A batch fn left empty is not committed.
func (c *Catalog) Apply(fn func(w *Writer) error) (WriteResult, error) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	return c.apply(fn)
}

// apply is Apply for a caller that holds the write lock (the primary's
// DDL). REQUIRES: c.writeMu.
func (c *Catalog) apply(fn func(w *Writer) error) (WriteResult, error) {
	w := &Writer{c: c, b: c.eng.NewBatch()}
	defer func() { w.b.Close() }() // Join may replace the batch
	return w.end(fn(w))
}

// end commits the batch if err is nil; otherwise, or if the commit fails,
// it gives up the oplog slots the batch reserved (nothing is committed).
// REQUIRES: c.writeMu.
func (w *Writer) end(err error) (WriteResult, error) {
	if err == nil {
		var r WriteResult
		if r, err = w.commit(); err == nil {
			return r, nil
		}
	}
	w.c.abort(w.slots)
	return WriteResult{}, err
}

// abort gives up slots reserved for a batch that is not committed.
func (c *Catalog) abort(slots []*oplog.Slot) {
	for _, s := range slots {
		c.log.Abort(s)
	}
}

// commit finishes the document writes (counters, multikey flags), commits
// the batch, publishes the in-memory changes and makes the appended oplog
// entries visible. REQUIRES: c.writeMu.
func (w *Writer) commit() (WriteResult, error) {
	for id, dw := range w.docs {
		if !w.dirty[id] {
			continue // only read
		}
		publish, err := dw.finish()
		if err != nil {
			return WriteResult{}, err
		}
		w.publish = append(w.publish, publish)
	}
	if w.b.Count() == 0 && len(w.publish) == 0 {
		return WriteResult{}, nil
	}
	if w.unlogged {
		w.b.MarkUnlogged()
	}
	seq, err := w.commitBatch()
	if err != nil {
		return WriteResult{}, fmt.Errorf("catalog: commit batch: %w", err)
	}
	for r := range w.relaxed {
		w.relax[r] = true
	}
	w.c.mu.Lock()
	for _, p := range w.publish {
		p()
	}
	w.c.mu.Unlock()
	for _, s := range w.slots {
		w.c.log.Commit(s)
	}
	return WriteResult{TS: w.lastTS, Seq: seq}, nil
}

// commitBatch commits the batch: synced when asked (markers; such a batch
// holds no oplog entry and skips snapshot bookkeeping, so the fsync does
// not hold up SetCommitPoint), else through the snapshot bookkeeping.
func (w *Writer) commitBatch() (uint64, error) {
	if w.sync && len(w.slots) == 0 {
		return w.c.eng.Commit(w.b, true)
	}
	if w.sync {
		return 0, errors.New("a synced batch cannot hold oplog entries")
	}
	return w.c.commitTracked(w.b, w.lastTS)
}

// Sync makes Apply sync the batch to the WAL before returning (markers and
// flags whose loss a crash must not allow). A synced batch may not append
// oplog entries.
func (w *Writer) Sync() { w.sync = true }

// Unlogged declares that the batch writes documents whose history the
// oplog already holds or takes from the sync source (initial sync's
// cloning, rollback's document restores), so it appends no oplog entry:
// the storage invariants check (storage.Batch.MarkUnlogged) then accepts
// its document writes without entries. An unlogged batch may not append
// oplog entries. Only a batch that calls it is marked: any other batch
// that writes a replicated document must append the entry naming it (the
// applier's, the primary's), else the invariants check fails the commit.
func (w *Writer) Unlogged() { w.unlogged = true }

// AppendOplog appends a replicated entry to the batch with the ts and term
// its primary gave it. e.TS must be after every ts the oplog allocated so
// far (the applier checks the local top first); entries appended to one
// batch must be in ts order. The entry becomes visible when Apply commits.
func (w *Writer) AppendOplog(e *oplog.Entry) error {
	if w.unlogged {
		return errUnlogged
	}
	s, err := w.c.log.ReserveAt(e.TS, e.Term)
	if err != nil {
		return fmt.Errorf("catalog: append oplog entry: %w", err)
	}
	w.slots = append(w.slots, s)
	if err := w.c.log.Append(w.b, s, e); err != nil {
		return fmt.Errorf("catalog: append oplog entry %v: %w", e.TS, err)
	}
	w.lastTS = e.TS
	return nil
}

// appendEntry appends an entry the primary writes (its DDL) to the batch,
// at the next ts the oplog allocates and the current term (Reserve), so
// the entry commits in ts order with every other write (writeMu). An
// entry on the local database is not replicated: it is not appended.
func (w *Writer) appendEntry(e *oplog.Entry) error {
	if isLocalNS(e.NS) {
		return nil
	}
	if w.unlogged {
		return errUnlogged
	}
	s := w.c.log.Reserve()
	w.slots = append(w.slots, s)
	if err := w.c.log.Append(w.b, s, e); err != nil {
		return err
	}
	w.lastTS = s.TS
	return nil
}

var errUnlogged = errors.New("catalog: an unlogged batch cannot append oplog entries")

// PutMarker sets a replication key (minValid, appliedThrough, ...) to
// value in the batch; a nil value deletes it. The key must lie under
// storage.PrefixRepl: the catalog does not interpret it.
func (w *Writer) PutMarker(key, value []byte) error {
	if len(key) < 2 || key[0] != storage.PrefixRepl {
		return fmt.Errorf("catalog: marker key %x is not under the replication prefix", key)
	}
	var err error
	if value == nil {
		err = w.b.Delete(key)
	} else {
		err = w.b.Set(key, value)
	}
	if err != nil {
		return fmt.Errorf("catalog: put marker %x: %w", key, err)
	}
	return nil
}

// TruncateOplogAfter deletes the oplog entries after ts AT ONCE, not in
// the batch (rollback, recovery, a reset for initial sync), and moves the
// oplog's top back; it returns how many it deleted. Their effects on the
// data stay. Whoever calls it sets an oplog truncate-after point in an
// earlier synced batch, so that a crash midway is finished at restart.
func (w *Writer) TruncateOplogAfter(ts bson.Timestamp) (int, error) {
	if len(w.slots) > 0 {
		return 0, errors.New("catalog: truncate the oplog in a batch that appends to it")
	}
	n, err := w.c.log.TruncateAfter(ts)
	if err != nil {
		return 0, fmt.Errorf("catalog: truncate oplog after %v: %w", ts, err)
	}
	return n, nil
}

// Marker reads a replication key as last committed; ok is false if it is
// not set.
func (c *Catalog) Marker(key []byte) (value []byte, ok bool, err error) {
	v, ok, err := c.eng.Get(key)
	if err != nil {
		return nil, false, fmt.Errorf("catalog: read marker %x: %w", key, err)
	}
	return v, ok, nil
}

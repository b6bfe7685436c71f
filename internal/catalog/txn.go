package catalog

// Multi-document transactions' storage side (the session state and the
// commands live in internal/txn and internal/command/txn_*.go).
//
// Invariants:
//   - A Txn reads one snapshot (the latest committed state, or the
//     majority snapshot, when it began) with its own writes layered over
//     it (storage.Overlay of document keys only): View. Secondary indexes
//     of a collection the Txn wrote are hidden from the view (HasIndex is
//     false), so plans over it scan the collection and see the overlay.
//   - Nothing a Txn writes is visible to others before Commit, which
//     writes the final state of every document it touched and ONE oplog
//     entry {op:"c", ns:"admin.$cmd", o:{applyOps:[...]}} in one batch
//     (Apply), through the Writer's document code (indexes, counters,
//     multikey, unique checks).
//   - Write conflicts: a document is touched by at most one open Txn
//     (TxnLocks; a second gets WriteConflict), and a Txn touches a
//     document only if its latest committed state equals the snapshot's;
//     Commit re-checks that under the write lock (a non-transactional
//     write that won in between makes Commit fail with WriteConflict).
//   - A Txn's memory is bounded: its operations by MaxTxnOpBytes, the
//     documents it buffers (the overlay) by MaxTxnOverlayBytes.
//
// Differences from MongoDB, TODO(#14):
//   - a non-transactional write to a document an open Txn wrote does not
//     wait for it: it wins, and the Txn's Commit fails with WriteConflict;
//   - a transaction larger than 16 MB of operations is refused
//     (BSONObjectTooLarge) instead of being split over several chained
//     applyOps entries (prevOpTime);
//   - a collection an insert creates implicitly is created at once, not at
//     the commit (an abort drops it again: txn_created.go);
//     create/createIndexes in a transaction are refused
//     (OperationNotSupportedInTransaction).

import (
	"bytes"
	"fmt"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/storage"
	"github.com/relaydb/relaydb/internal/storage/keystring"
)

// MaxTxnOpBytes caps a transaction's operations (its applyOps entry), as
// MongoDB caps a transaction's oplog entry at 16 MB.
const MaxTxnOpBytes = 16 * 1024 * 1024

// MaxTxnOverlayBytes caps the documents a transaction buffers (their
// latest versions: small updates of large documents stay under
// MaxTxnOpBytes while their documents do not).
const MaxTxnOverlayBytes = 64 * 1024 * 1024

// TxnLocks is the process's table of documents held by open transactions.
type TxnLocks struct {
	mu    sync.Mutex
	owner map[string]*Txn // document key -> the transaction that wrote it
}

// NewTxnLocks returns an empty lock table.
func NewTxnLocks() *TxnLocks { return &TxnLocks{owner: map[string]*Txn{}} }

// Txn is one transaction's reads and buffered writes. Its methods are not
// safe for concurrent use (a session runs one statement at a time).
type Txn struct {
	c       *Catalog
	locks   *TxnLocks
	base    *Snapshot // referenced until the view closes
	view    *Snapshot
	ov      *storage.Overlay
	mu      sync.Mutex
	touched map[string]*txnDoc
	order   []string // touched, in first-write order
	held    []string // document locks taken
	colls   map[uint32]bool
	ops     bson.A
	opBytes int
	done    bool
	created []*Collection // created implicitly by its statements (txn_created.go)
}

// txnDoc is a document a Txn wrote, as its snapshot held it.
type txnDoc struct {
	coll *Collection
	key  []byte
	id   any
	base []byte
	had  bool
	// ukeys are the document's keys in each unique index as the
	// transaction left it (nil once deleted): txn_unique.go.
	ukeys map[uint32][][]byte
}

// BeginTxn starts a transaction reading the majority snapshot (majority;
// the latest state when there is none yet) or the latest committed state.
func (c *Catalog) BeginTxn(locks *TxnLocks, majority bool) *Txn {
	var base *Snapshot
	if majority {
		base, _ = c.MajoritySnapshot()
	}
	if base == nil {
		base = c.latestSnapshot()
	}
	t := &Txn{c: c, locks: locks, base: base, ov: storage.NewOverlay(),
		touched: map[string]*txnDoc{}, colls: map[uint32]bool{}}
	t.view = &Snapshot{ts: base.ts, s: base.s.WithOverlay(t.ov, base.Release), mgr: &snapMgr{}, refs: 1, txn: t}
	return t
}

// latestSnapshot returns a referenced snapshot of the latest committed
// state, tagged with the newest committed entry's ts.
func (c *Catalog) latestSnapshot() *Snapshot {
	m := &c.snaps
	m.mu.Lock()
	defer m.mu.Unlock()
	ts := m.lastTS
	if ts.IsZero() {
		ts, _ = c.log.Top()
	}
	return &Snapshot{ts: ts, s: c.eng.NewSnapshot(), mgr: m, refs: 1}
}

// View is the snapshot the transaction reads, with its own writes. The
// transaction holds a reference until Release; readers Acquire their own.
func (t *Txn) View() *Snapshot { return t.view }

// ReadTS is the ts of the snapshot the transaction reads.
func (t *Txn) ReadTS() bson.Timestamp { return t.base.ts }

// Empty reports whether the transaction wrote nothing.
func (t *Txn) Empty() bool { return len(t.ops) == 0 }

// wrote reports whether the transaction wrote a document of collection id.
func (t *Txn) wrote(id uint32) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.colls[id]
}

// errWriteConflict is MongoDB's transaction write conflict.
func errWriteConflict() error {
	return mongoerr.New(mongoerr.WriteConflict,
		"Caused by :: Write conflict during plan execution and yielding is disabled. :: Please retry your operation or multi-document transaction.").
		WithLabels(mongoerr.LabelTransientTransaction)
}

// touch registers the transaction's write of coll's document id: it
// takes the document's lock and checks it is unchanged since the
// snapshot; WriteConflict otherwise.
func (t *Txn) touch(coll *Collection, id any) ([]byte, error) {
	key := storage.DocKey(coll.ID, keystring.AppendValue(nil, id, false))
	ks := string(key)
	if t.touched[ks] != nil {
		return key, nil
	}
	t.locks.mu.Lock()
	if o := t.locks.owner[ks]; o != nil && o != t {
		t.locks.mu.Unlock()
		return nil, errWriteConflict()
	}
	t.locks.owner[ks] = t
	t.locks.mu.Unlock()
	t.held = append(t.held, ks)
	base, had, err := t.base.s.GetBase(key)
	if err != nil {
		return nil, fmt.Errorf("catalog: transaction read %s: %w", coll.NS(), err)
	}
	latest, lhad, err := t.c.eng.Get(key)
	if err != nil {
		return nil, fmt.Errorf("catalog: transaction read %s: %w", coll.NS(), err)
	}
	if had != lhad || !bytes.Equal(base, latest) {
		return nil, errWriteConflict() // the lock stays until Release
	}
	t.mu.Lock()
	t.touched[ks] = &txnDoc{coll: coll, key: key, id: id, base: base, had: had}
	t.order = append(t.order, ks)
	t.colls[coll.ID] = true
	t.mu.Unlock()
	return key, nil
}

// addOp appends one applyOps operation, within MaxTxnOpBytes.
func (t *Txn) addOp(coll *Collection, op string, o, o2 bson.D) error {
	d := bson.D{{Key: "op", Value: op}, {Key: "ns", Value: coll.NS()}, {Key: "ui", Value: coll.UUID}, {Key: "o", Value: o}}
	if o2 != nil {
		d = append(d, bson.E{Key: "o2", Value: o2})
	}
	raw, err := bsonx.Encode(d)
	if err != nil {
		return fmt.Errorf("catalog: encode transaction operation: %w", err)
	}
	if t.opBytes+len(raw) > MaxTxnOpBytes {
		return mongoerr.New(mongoerr.BSONObjectTooLarge, "Total size of all transaction operations must be less than %d. Actual size is %d", MaxTxnOpBytes, t.opBytes+len(raw))
	}
	if n := t.ov.Size(); n > MaxTxnOverlayBytes {
		return mongoerr.New(mongoerr.BSONObjectTooLarge, "Total size of the documents a transaction writes must be less than %d. Actual size is %d", MaxTxnOverlayBytes, n)
	}
	t.opBytes += len(raw)
	t.ops = append(t.ops, d)
	return nil
}

func (t *Txn) check(coll *Collection) error {
	if t.done {
		return mongoerr.New(mongoerr.NoSuchTransaction, "transaction has ended").WithLabels(mongoerr.LabelTransientTransaction)
	}
	if capped, _ := bsonx.Get(coll.Options, "capped"); capped == true {
		return mongoerr.New(mongoerr.OperationNotSupportedInTransaction, "Collection '%s' is a capped collection. Writes in transactions are not allowed on capped collections.", coll.NS())
	}
	if coll.DB == "config" || coll.DB == "admin" || coll.DB == "local" || bytes.HasPrefix([]byte(coll.Name), []byte("system.")) {
		return mongoerr.New(mongoerr.OperationNotSupportedInTransaction, "Cannot write to %s in a multi-document transaction.", coll.NS())
	}
	return nil
}

// Insert buffers an insert of doc (which has its _id). DuplicateKey if
// the view holds the _id or one of its unique keys (txn_unique.go).
func (t *Txn) Insert(coll *Collection, doc bson.D) error {
	if err := t.check(coll); err != nil {
		return err
	}
	raw, err := bsonx.Encode(doc)
	if err != nil {
		return fmt.Errorf("catalog: encode document: %w", err)
	}
	if len(raw) > MaxDocSize {
		return mongoerr.New(mongoerr.BadValue, "object to insert too large. size in bytes: %d, max size: %d", len(raw), MaxDocSize)
	}
	_, id, err := idKey(doc)
	if err != nil {
		return err
	}
	if _, exists, err := t.view.s.Get(storage.DocKey(coll.ID, keystring.AppendValue(nil, id, false))); err != nil {
		return err
	} else if exists {
		return newDupKey(coll, coll.Indexes()[0], bson.D{{Key: "_id", Value: id}})
	}
	return t.put(coll, id, doc, raw, oplog.OpInsert, doc, bson.D{{Key: "_id", Value: id}})
}

// Update buffers the replacement of old by newDoc; o is its oplog form.
func (t *Txn) Update(coll *Collection, old, newDoc, o bson.D) error {
	if err := t.check(coll); err != nil {
		return err
	}
	raw, err := bsonx.Encode(newDoc)
	if err != nil {
		return fmt.Errorf("catalog: encode document: %w", err)
	}
	if len(raw) > MaxDocSize {
		return mongoerr.New(mongoerr.UpdatedDocumentTooLarge, "Resulting document after update is larger than %d", MaxDocSize)
	}
	_, id, err := idKey(old)
	if err != nil {
		return err
	}
	return t.put(coll, id, newDoc, raw, oplog.OpUpdate, o, bson.D{{Key: "_id", Value: id}})
}

// Delete buffers the deletion of old (by its _id).
func (t *Txn) Delete(coll *Collection, old bson.D) error {
	if err := t.check(coll); err != nil {
		return err
	}
	_, id, err := idKey(old)
	if err != nil {
		return err
	}
	key, err := t.touch(coll, id)
	if err != nil {
		return err
	}
	if err := t.addOp(coll, oplog.OpDelete, bson.D{{Key: "_id", Value: id}}, nil); err != nil {
		return err
	}
	t.ov.Put(key, nil)
	t.touched[string(key)].ukeys = nil
	return nil
}

// put buffers doc (encoded raw) as coll's document id, after checking
// its unique keys, with the operation (op, o, o2).
func (t *Txn) put(coll *Collection, id any, doc bson.D, raw []byte, op string, o, o2 bson.D) error {
	idKS := keystring.AppendValue(nil, id, false)
	ukeys, err := t.checkUnique(coll, idKS, doc)
	if err != nil {
		return err
	}
	key, err := t.touch(coll, id)
	if err != nil {
		return err
	}
	if err := t.addOp(coll, op, o, o2); err != nil {
		return err
	}
	t.ov.Put(key, raw)
	t.touched[string(key)].ukeys = ukeys
	return nil
}

// Release ends the transaction: its locks and its snapshot go. Safe to
// call more than once.
func (t *Txn) Release() {
	if t.done {
		return
	}
	t.done = true
	t.locks.mu.Lock()
	for _, ks := range t.held {
		if t.locks.owner[ks] == t {
			delete(t.locks.owner, ks)
		}
	}
	t.locks.mu.Unlock()
	t.view.Release()
}

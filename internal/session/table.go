package session

import (
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Stmt is what an executed statement did, enough to rebuild its reply.
type Stmt struct {
	Op       string // oplog op: "i", "u", "d", "n" (matched, nothing changed)
	Upserted bool   // an update that inserted
	ID       any    // the document's _id
}

// Key identifies a session: the bytes of its lsid.id UUID.
type Key string

// KeyOf returns the session key of an lsid document {id: UUID, ...}.
func KeyOf(lsid bson.D) (Key, bool) {
	for _, e := range lsid {
		if e.Key == "id" {
			if b, ok := e.Value.(bson.Binary); ok {
				return Key(b.Data), true
			}
		}
	}
	return "", false
}

type record struct {
	txn     int64
	stmts   map[int32]Stmt
	lastUse time.Time
}

// Table is the process's session records. It is safe for concurrent use.
type Table struct {
	mu      sync.Mutex
	records map[Key]*record
	commits map[Key]int64 // newest committed transaction (txn.go)
	ready   chan struct{} // non-nil while a rebuild runs (ready.go)
}

// NewTable returns an empty table.
func NewTable() *Table { return &Table{records: map[Key]*record{}} }

// Begin checks a retryable write's txnNumber against the session's: an
// older one fails with TransactionTooOld; a newer one starts afresh.
func (t *Table) Begin(k Key, txn int64) error {
	t.waitReady()
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.records[k]
	switch {
	case r == nil || txn > r.txn:
		t.records[k] = &record{txn: txn, stmts: map[int32]Stmt{}, lastUse: time.Now()}
	case txn < r.txn:
		return mongoerr.New(mongoerr.TransactionTooOld,
			"Retryable write with txnNumber %d is prohibited on session because a newer retryable write with txnNumber %d has already started on this session.", txn, r.txn)
	default:
		r.lastUse = time.Now()
	}
	return nil
}

// Executed returns the record of statement stmt under txn, if it ran.
func (t *Table) Executed(k Key, txn int64, stmt int32) (Stmt, bool) {
	t.waitReady()
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.records[k]
	if r == nil || r.txn != txn {
		return Stmt{}, false
	}
	s, ok := r.stmts[stmt]
	return s, ok
}

// Record notes that stmt ran under txn (a newer txn replaces the record;
// an older one is ignored: entries can be replayed out of date).
func (t *Table) Record(k Key, txn int64, stmt int32, s Stmt) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.records[k]
	if r == nil || txn > r.txn {
		r = &record{txn: txn, stmts: map[int32]Stmt{}}
		t.records[k] = r
	}
	if txn == r.txn {
		r.stmts[stmt] = s
		r.lastUse = time.Now()
	}
}

// Expire forgets sessions unused for longer than idle (MongoDB's
// logicalSessionTimeoutMinutes is 30).
func (t *Table) Expire(idle time.Duration) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	cutoff := time.Now().Add(-idle)
	for k, r := range t.records {
		if r.lastUse.Before(cutoff) {
			delete(t.records, k)
			n++
		}
	}
	return n
}

// Len returns how many sessions have records.
func (t *Table) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.records)
}

// Reset forgets every record.
func (t *Table) Reset() {
	t.waitReady()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.records = map[Key]*record{}
	t.commits = nil
}

package session

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// Committed transactions: a session's newest committed transaction
// number, learnt from the commit itself (primary), from its applyOps
// oplog entry (secondaries, restart), so a commitTransaction retried on
// any member, after a failover or a restart, answers ok.

// RecordCommit notes that transaction txn of session k committed.
func (t *Table) RecordCommit(k Key, txn int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.commits == nil {
		t.commits = map[Key]int64{}
	}
	if txn > t.commits[k] {
		t.commits[k] = txn
	}
	if r := t.records[k]; r == nil || txn > r.txn {
		t.records[k] = &record{txn: txn, stmts: map[int32]Stmt{}}
	}
}

// TxnCommitted reports whether transaction txn of session k committed.
func (t *Table) TxnCommitted(k Key, txn int64) bool {
	t.waitReady()
	t.mu.Lock()
	defer t.mu.Unlock()
	n, ok := t.commits[k]
	return ok && n == txn
}

// observeCommit records a transaction's applyOps commit entry; it
// reports whether entry was one.
func (t *Table) observeCommit(k Key, txn int64, entry bson.D) bool {
	if op, _ := bsonx.Get(entry, "op"); op != "c" {
		return false
	}
	o, _ := bsonx.Get(entry, "o")
	od, _ := o.(bson.D)
	if len(od) == 0 || od[0].Key != "applyOps" {
		return false
	}
	t.RecordCommit(k, txn)
	return true
}

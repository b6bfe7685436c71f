package exec

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/session"
)

// Retry identifies a retryable write: a session (lsid), its txnNumber and
// the statements' stmtIds. A statement the session already ran under this
// txnNumber is answered from its record and not applied again. nil means
// the write is not retryable.
type Retry struct {
	Key       session.Key
	LSID      bson.D
	TxnNumber int64
	StmtIDs   []int32 // explicit stmtIds; nil: a statement's index
	// Txn, when set, runs the statement in a transaction (txn.go).
	Txn *catalog.Txn
}

func (r *Retry) stmt(i int) int32 {
	if r.StmtIDs != nil && i < len(r.StmtIDs) {
		return r.StmtIDs[i]
	}
	return int32(i)
}

// done returns the record of statement i if it already ran.
func (e *Engine) done(r *Retry, i int) (session.Stmt, bool) {
	if r == nil || r.Txn != nil {
		return session.Stmt{}, false
	}
	return e.sessions.Executed(r.Key, r.TxnNumber, r.stmt(i))
}

// writeOpts returns the catalog option carrying statement i's identity.
func writeOpts(r *Retry, i int) []catalog.WriteOption {
	if r == nil {
		return nil
	}
	info := session.TxnInfo{LSID: r.LSID, TxnNumber: r.TxnNumber, StmtID: r.stmt(i)}
	return []catalog.WriteOption{{Txn: info.Fields()}}
}

// record notes that statement i ran (after its write committed).
func (e *Engine) record(r *Retry, i int, s session.Stmt) {
	if r != nil && r.Txn == nil {
		e.sessions.Record(r.Key, r.TxnNumber, r.stmt(i), s)
	}
}

// Sessions returns the retryable-write records.
func (e *Engine) Sessions() *session.Table { return e.sessions }

// rebuildWindow is how many of the newest oplog entries are scanned at
// startup to rebuild the session records.
const rebuildWindow = 200_000

// rebuildSessions replays the oplog's newest entries into the table, so a
// restarted member still recognises recent retries.
func (e *Engine) rebuildSessions() error {
	raws, err := e.cat.Oplog().ReadReverse(bson.Timestamp{}, rebuildWindow)
	if err != nil {
		return err
	}
	for i := len(raws) - 1; i >= 0; i-- {
		d, err := (&Row{Raw: raws[i]}).decoded()
		if err != nil {
			return err
		}
		e.sessions.Observe(d)
	}
	return nil
}

// replayUpdate counts an update statement that already ran as it counted
// then: an upsert reports its _id again, a change counts as modified.
func (r *WriteResult) replayUpdate(i int, rec session.Stmt) {
	r.N++
	switch rec.Op {
	case "u":
		r.NModified++
	case "i":
		r.Upserted = append(r.Upserted, Upserted{Index: i, ID: rec.ID})
	}
}

// RebuildSessions forgets every retryable-write record and replays the
// oplog's newest entries: after a rollback undid writes, their records
// must go too.
func (e *Engine) RebuildSessions() error {
	e.sessions.Reset()
	return e.rebuildSessions()
}

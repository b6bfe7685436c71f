package command

import (
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/session"
	"github.com/relaydb/relaydb/internal/txn"
)

// txnHeld is a transaction a statement holds (locked) while it runs.
type txnHeld struct{ t *txn.Txn }

// txnManagers holds each dispatcher's transactions (created on first use,
// with its reaper, which stops when the dispatcher shuts down).
var txnManagers sync.Map // *Dispatcher -> *txn.Manager

// txns returns d's transaction manager.
func (d *Dispatcher) txns() *txn.Manager {
	if m, ok := txnManagers.Load(d); ok {
		return m.(*txn.Manager)
	}
	m, loaded := txnManagers.LoadOrStore(d, txn.NewManager(d.eng.Catalog()))
	if !loaded {
		primary := func() bool { return d.repl == nil || d.repl.CheckWrite("admin") == nil }
		go m.(*txn.Manager).Run(d.done, time.Second, primary)
	}
	return m.(*txn.Manager)
}

// errNoSuchTxn is NoSuchTransaction with its TransientTransactionError label.
func errNoSuchTxn(format string, args ...any) error {
	return mongoerr.New(mongoerr.NoSuchTransaction, format, args...).WithLabels(mongoerr.LabelTransientTransaction)
}

// runInTxn runs a transaction statement (ctx.txn set): it starts the
// transaction or finds the session's, holds it while run runs, and aborts
// it when the statement fails (MongoDB aborts a transaction whose
// statement fails).
func (d *Dispatcher) runInTxn(ctx *Ctx, run func() (bson.D, error)) (bson.D, error) {
	if err := d.repl.CheckWrite(ctx.DB); err != nil {
		return nil, err
	}
	s := ctx.txn
	switch ctx.Name {
	case "commitTransaction", "abortTransaction":
		return run()
	}
	t, err := d.txnFor(s)
	if err != nil {
		return nil, err
	}
	defer t.Unlock()
	s.t = &txnHeld{t: t}
	reply, err := run()
	if err == nil {
		err = txnWriteError(reply)
	}
	if err != nil {
		d.abortTxn(t, mongoerr.From(err).Msg)
		if mongoerr.Is(err, mongoerr.WriteConflict) {
			return nil, mongoerr.From(err).WithLabels(mongoerr.LabelTransientTransaction)
		}
		if mongoerr.From(err).Code != mongoerr.WriteConflict && hasWriteErrors(reply) {
			return reply, nil // write errors stay in the reply; the transaction is aborted
		}
	}
	return reply, err
}

// txnFor returns the statement's transaction, locked: a new one for
// startTransaction, else the session's transaction in progress.
func (d *Dispatcher) txnFor(s *txnStmt) (*txn.Txn, error) {
	m := d.txns()
	cur := m.Get(s.key)
	if s.start {
		if cur != nil && s.number < cur.Number {
			return nil, mongoerr.New(mongoerr.TransactionTooOld, "Cannot start transaction %d on session because a newer transaction %d has already started", s.number, cur.Number)
		}
		if cur != nil && s.number == cur.Number || d.eng.Sessions().TxnCommitted(s.key, s.number) {
			return nil, mongoerr.New(mongoerr.ConflictingOperationInProgress, "Cannot start a transaction at given transaction number %d: a transaction with the same number has already started", s.number)
		}
		return m.Start(s.key, s.number, s.majority), nil
	}
	if cur == nil || cur.Number != s.number {
		if cur != nil && s.number < cur.Number {
			return nil, mongoerr.New(mongoerr.TransactionTooOld, "txnNumber %d is less than last txnNumber %d seen in session", s.number, cur.Number)
		}
		return nil, errNoSuchTxn("Given transaction number %d does not match any in-progress transactions.", s.number)
	}
	cur.Lock()
	if !m.Current(s.key, cur) {
		cur.Unlock()
		return nil, errNoSuchTxn("Given transaction number %d does not match any in-progress transactions.", s.number)
	}
	switch cur.State() {
	case txn.Committed:
		cur.Unlock()
		return nil, mongoerr.New(mongoerr.TransactionCommitted, "Transaction with { txnNumber: %d } has been committed.", s.number)
	case txn.Aborted:
		reason := cur.Reason
		cur.Unlock()
		return nil, errNoSuchTxn("Transaction with { txnNumber: %d } has been aborted (%s).", s.number, reason)
	}
	return cur, nil
}

// txnRetry is the exec.Retry of a statement in a transaction.
func (c *Ctx) txnRetry() (*exec.Retry, error) {
	s := c.txn
	if s.t == nil || s.t.t.Cat == nil {
		return nil, errNoSuchTxn("Given transaction number %d does not match any in-progress transactions.", s.number)
	}
	return &exec.Retry{Key: s.key, LSID: s.lsid, TxnNumber: s.number, Txn: s.t.t.Cat}, nil
}

// txnReadView is the read view of a statement in a transaction.
func (c *Ctx) txnReadView() (*readView, error) {
	s := c.txn
	if s.t == nil || s.t.t.Cat == nil {
		return nil, errNoSuchTxn("Given transaction number %d does not match any in-progress transactions.", s.number)
	}
	snap := s.t.t.Cat.View()
	snap.Acquire()
	return &readView{rc: readConcern{level: levelLocal}, snap: snap}, nil
}

// txnWriteError turns a write error of a transaction's statement into
// the statement's failure (the transaction aborts); a WriteConflict
// becomes the command's error, as in MongoDB.
func txnWriteError(reply bson.D) error {
	v, ok := bsonx.Get(reply, "writeErrors")
	a, _ := v.(bson.A)
	if !ok || len(a) == 0 {
		return nil
	}
	we, _ := a[0].(bson.D)
	code, _ := bsonx.Get(we, "code")
	n, _ := bsonx.AsInt64(code)
	msg, _ := bsonx.Get(we, "errmsg")
	s, _ := msg.(string)
	return mongoerr.New(mongoerr.Code(n), "%s", s)
}

func hasWriteErrors(reply bson.D) bool {
	_, ok := bsonx.Get(reply, "writeErrors")
	return ok
}

// commitTransaction commits the session's transaction: its writes and one
// applyOps oplog entry in one batch; the dispatcher then waits for the
// write concern (AfterWrite). A commit retried after success (also on
// another member, after a failover: the session table learnt it from the
// oplog) answers ok.
func commitTransaction(c *Ctx, _ *request.CommitTransaction) (bson.D, error) {
	if c.D.repl == nil {
		return nil, c.D.errNoTransactions()
	}
	s := c.txn
	m := c.D.txns()
	t := m.Get(s.key)
	if t == nil || t.Number != s.number {
		if c.D.eng.Sessions().TxnCommitted(s.key, s.number) {
			return bson.D{}, nil
		}
		if t != nil && s.number < t.Number {
			return nil, mongoerr.New(mongoerr.TransactionTooOld, "txnNumber %d is less than last txnNumber %d seen in session", s.number, t.Number)
		}
		return nil, errNoSuchTxn("Given transaction number %d does not match any in-progress transactions.", s.number)
	}
	t.Lock()
	defer t.Unlock()
	switch t.State() {
	case txn.Committed:
		return bson.D{}, nil
	case txn.Aborted:
		return nil, errNoSuchTxn("Transaction with { txnNumber: %d } has been aborted (%s).", s.number, t.Reason)
	}
	extra := bson.D{{Key: "lsid", Value: s.lsid}, {Key: "txnNumber", Value: s.number},
		{Key: "prevOpTime", Value: bson.D{{Key: "ts", Value: bson.Timestamp{}}, {Key: "t", Value: int64(-1)}}}}
	if _, err := t.Cat.Commit(extra); err != nil {
		c.D.abortTxn(t, mongoerr.From(err).Msg)
		return nil, err
	}
	t.End(txn.Committed, "")
	c.D.eng.Sessions().RecordCommit(s.key, s.number)
	return bson.D{}, nil
}

// abortTransaction aborts the session's transaction in progress.
func abortTransaction(c *Ctx, _ *request.AbortTransaction) (bson.D, error) {
	if c.D.repl == nil {
		return nil, c.D.errNoTransactions()
	}
	s := c.txn
	t := c.D.txns().Get(s.key)
	if t == nil || t.Number != s.number {
		if c.D.eng.Sessions().TxnCommitted(s.key, s.number) {
			return nil, mongoerr.New(mongoerr.TransactionCommitted, "Transaction with { txnNumber: %d } has been committed.", s.number)
		}
		return nil, errNoSuchTxn("Given transaction number %d does not match any in-progress transactions.", s.number)
	}
	t.Lock()
	defer t.Unlock()
	switch t.State() {
	case txn.Committed:
		return nil, mongoerr.New(mongoerr.TransactionCommitted, "Transaction with { txnNumber: %d } has been committed.", s.number)
	case txn.Aborted:
		return nil, errNoSuchTxn("Transaction with { txnNumber: %d } has been aborted (%s).", s.number, t.Reason)
	}
	c.D.abortTxn(t, "abortTransaction")
	return bson.D{}, nil
}

// abortTxn aborts the locked transaction t and, on the primary, drops the
// collections its statements created that nothing else uses (an abort
// leaves no collection; catalog/txn_created.go). A failed drop leaves the
// empty collection: the abort itself succeeded.
func (d *Dispatcher) abortTxn(t *txn.Txn, reason string) {
	cat := t.Cat
	t.End(txn.Aborted, reason)
	if cat == nil || d.repl.CheckWrite("admin") != nil {
		return
	}
	if err := cat.DropCreated(); err != nil {
		d.log.Warn("transaction abort: drop of its created collection failed", "err", err)
	}
}

// forgetTxn aborts an ended session's transaction (endSessions).
func (d *Dispatcher) forgetTxn(lsid bson.Binary) {
	m, ok := txnManagers.Load(d)
	if !ok {
		return
	}
	cat := m.(*txn.Manager).Forget(session.Key(lsid.Data))
	if cat == nil || d.repl.CheckWrite("admin") != nil {
		return
	}
	if err := cat.DropCreated(); err != nil {
		d.log.Warn("endSessions: drop of an aborted transaction's created collection failed", "err", err)
	}
}

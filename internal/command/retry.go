package command

import (
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/session"
)

// retry parses a retryable write's identity (lsid, txnNumber, stmtIds) and
// checks the txnNumber against the session's; nil when the command is not
// a retryable write.
func (c *Ctx) retry() (*exec.Retry, error) {
	v, ok := c.field("txnNumber")
	if !ok {
		return nil, nil
	}
	txn, isLong := v.(int64)
	if !isLong {
		return nil, c.typeErr("txnNumber", v, "long")
	}
	if c.D.repl == nil {
		return nil, mongoerr.New(mongoerr.IllegalOperation, "Transaction numbers are only allowed on a replica set member or mongos")
	}
	if c.txn != nil {
		return c.txnRetry() // txn_run.go
	}
	lsid, _, err := c.doc("lsid")
	if err != nil {
		return nil, err
	}
	key, ok := session.KeyOf(lsid)
	if !ok {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "Transaction number requires a session ID to also be specified")
	}
	stmtIDs, err := c.stmtIDs()
	if err != nil {
		return nil, err
	}
	if err := c.D.eng.Sessions().Begin(key, txn); err != nil {
		return nil, err
	}
	return &exec.Retry{Key: key, LSID: lsid, TxnNumber: txn, StmtIDs: stmtIDs}, nil
}

func (c *Ctx) stmtIDs() ([]int32, error) {
	a, ok, err := c.array("stmtIds")
	if err != nil || !ok {
		return nil, err
	}
	out := make([]int32, len(a))
	for i, v := range a {
		n, isInt := v.(int32)
		if !isInt {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "stmtIds must be an array of ints")
		}
		out[i] = n
	}
	return out, nil
}

package catalog

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/failpoint"
)

// retryableFailPoint runs the onPrimaryTransactionalWrite fail point
// (package failpoint) before a retryable write's statement commits: the
// options carry the statement's lsid and txnNumber (only retryable writes
// pass them). It may fail the statement, so the write is not reflected,
// and marks the session's request for a closed connection (the command
// layer takes the mark once the command ran). As on mongod, the command's
// other statements still run.
func retryableFailPoint(opts []WriteOption) error {
	if len(opts) == 0 || !failpoint.OnPrimaryTransactionalWrite.On() {
		return nil
	}
	fields := txnFields(opts)
	tw := failpoint.CheckTxnWrite()
	if tw == nil {
		return nil
	}
	if tw.CloseConn {
		if key, txn, ok := sessionOf(fields); ok {
			failpoint.MarkClose(key, txn)
		}
	}
	return tw.Err
}

// sessionOf returns the session key (the lsid's id bytes, as
// session.KeyOf) and txnNumber of a retryable write's oplog fields.
func sessionOf(fields bson.D) (string, int64, bool) {
	var key string
	var txn int64
	var hasKey, hasTxn bool
	for _, e := range fields {
		switch e.Key {
		case "lsid":
			lsid, _ := e.Value.(bson.D)
			for _, f := range lsid {
				if b, ok := f.Value.(bson.Binary); ok && f.Key == "id" {
					key, hasKey = string(b.Data), true
				}
			}
		case "txnNumber":
			txn, hasTxn = e.Value.(int64)
		}
	}
	return key, txn, hasKey && hasTxn
}

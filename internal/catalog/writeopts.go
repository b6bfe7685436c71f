package catalog

import "go.mongodb.org/mongo-driver/v2/bson"

// WriteOption adds to a document write's oplog entry.
type WriteOption struct {
	// Txn are a retryable write's lsid, txnNumber and stmtId fields
	// (session.TxnInfo.Fields): they travel in the oplog entry so every
	// member learns which statements of the session ran.
	Txn bson.D
}

// txnFields returns the oplog fields the options carry, nil if none.
func txnFields(opts []WriteOption) bson.D {
	var out bson.D
	for _, o := range opts {
		out = append(out, o.Txn...)
	}
	return out
}

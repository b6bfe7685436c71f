package session

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// TxnInfo is the retryable-write identity a write carries into its oplog
// entry: MongoDB's lsid, txnNumber and stmtId fields.
type TxnInfo struct {
	LSID      bson.D
	TxnNumber int64
	StmtID    int32
}

// Fields returns the oplog fields of t, in MongoDB's order.
func (t *TxnInfo) Fields() bson.D {
	return bson.D{
		{Key: "lsid", Value: t.LSID},
		{Key: "txnNumber", Value: t.TxnNumber},
		{Key: "stmtId", Value: t.StmtID},
	}
}

// Observe records the statement an oplog entry carries, if any: used when
// a secondary applies entries and when the table is rebuilt at startup.
// entry is the decoded oplog document.
func (t *Table) Observe(entry bson.D) {
	lsidV, ok := bsonx.Get(entry, "lsid")
	if !ok {
		return
	}
	lsid, _ := lsidV.(bson.D)
	k, ok := KeyOf(lsid)
	if !ok {
		return
	}
	txnV, _ := bsonx.Get(entry, "txnNumber")
	stmtV, _ := bsonx.Get(entry, "stmtId")
	txn, ok1 := bsonx.AsInt64(txnV)
	stmt, ok2 := bsonx.AsInt64(stmtV)
	if ok1 && t.observeCommit(k, txn, entry) {
		return
	}
	if !ok1 || !ok2 {
		return
	}
	op, _ := bsonx.Get(entry, "op")
	s := Stmt{}
	s.Op, _ = op.(string)
	s.ID = entryID(entry)
	if up, _ := bsonx.Get(entry, "upsert"); up == true {
		s.Upserted = true
	}
	t.Record(k, txn, int32(stmt), s)
}

// entryID is the _id an entry touched: o2._id for updates, o._id otherwise.
func entryID(entry bson.D) any {
	for _, f := range []string{"o2", "o"} {
		if v, ok := bsonx.Get(entry, f); ok {
			if d, ok := v.(bson.D); ok {
				if id, ok := bsonx.Get(d, "_id"); ok {
					return id
				}
			}
		}
	}
	return nil
}

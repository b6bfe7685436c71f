package catalog

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/oplog"
)

// TestTxn: a transaction reads its snapshot and its own writes, others do
// not see them before Commit, which writes them and one applyOps entry;
// a second transaction writing the same document conflicts, unique keys
// are checked at the statement, and Release frees the documents.
func TestTxn(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	mustIndex(t, c, coll, spec("u_1", d("u", 1), "unique", true))
	mustInsert(t, c, coll, d("_id", 1, "u", 1), d("_id", 2, "u", 2))
	coll = live(c, coll)
	locks := NewTxnLocks()
	t1 := c.BeginTxn(locks, false)
	steps := []struct {
		name string
		err  error
		code mongoerr.Code
	}{
		{"insert 3", t1.Insert(coll, d("_id", 3, "u", 3)), 0},
		{"update 1", t1.Update(coll, d("_id", 1, "u", 1), d("_id", 1, "u", 10), d("$set", d("u", 10))), 0},
		{"delete 2", t1.Delete(coll, d("_id", 2, "u", 2)), 0},
		{"insert dup _id", t1.Insert(coll, d("_id", 3, "u", 30)), mongoerr.DuplicateKey},
		{"insert dup u", t1.Insert(coll, d("_id", 4, "u", 3)), mongoerr.DuplicateKey},
		{"insert u freed by the update", t1.Insert(coll, d("_id", 5, "u", 1)), 0},
	}
	for _, s := range steps {
		if (s.err == nil) != (s.code == 0) || (s.err != nil && !mongoerr.Is(s.err, s.code)) {
			t.Fatalf("%s: %v, want code %d", s.name, s.err, s.code)
		}
	}
	if got := ids(drain(t, coll.ScanAt(t1.View(), false))); !txnIDsAre(got, 1, 3, 5) {
		t.Fatalf("the transaction's view: %v", got)
	}
	if got := ids(drain(t, coll.Scan(false))); !txnIDsAre(got, 1, 2) {
		t.Fatalf("outside before the commit: %v", got)
	}
	t2 := c.BeginTxn(locks, false)
	if err := t2.Insert(coll, d("_id", 3, "u", 33)); !mongoerr.Is(err, mongoerr.WriteConflict) {
		t.Fatalf("t2 inserting the _id t1 inserted: %v, want WriteConflict", err)
	}
	if err := t2.Delete(coll, d("_id", 1, "u", 1)); !mongoerr.Is(err, mongoerr.WriteConflict) {
		t.Fatalf("t2 writing t1's document: %v, want WriteConflict", err)
	}
	t2.Release()
	r, err := t1.Commit(d("txnNumber", int64(1)))
	if err != nil {
		t.Fatal(err)
	}
	t1.Release()
	if got := ids(drain(t, coll.Scan(false))); !txnIDsAre(got, 1, 3, 5) {
		t.Fatalf("after the commit: %v", got)
	}
	e, err := c.Oplog().Read(bson.Timestamp{T: r.TS.T, I: r.TS.I - 1}, false, 1)
	if err != nil || len(e) != 1 || e[0].Op != oplog.OpCommand || e[0].NS != TxnNS {
		t.Fatalf("the commit's entry: %v %v", e, err)
	}
	if ops, _ := e[0].O[0].Value.(bson.A); e[0].O[0].Key != "applyOps" || len(ops) != 4 {
		t.Fatalf("applyOps: %v", e[0].O)
	}
	t3 := c.BeginTxn(locks, false)
	if err := t3.Delete(coll, d("_id", 1, "u", 10)); err != nil {
		t.Fatalf("after t1's release its documents are free: %v", err)
	}
	t3.Release()
	mustVerify(t, c)
}

func txnIDsAre(got []any, want ...int) bool {
	if len(got) != len(want) {
		return false
	}
	for i, w := range want {
		if got[i] != int32(w) {
			return false
		}
	}
	return true
}

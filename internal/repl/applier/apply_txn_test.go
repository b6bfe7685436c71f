package applier

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
)

// TestApplyOps: a transaction's applyOps entry applies all of its
// operations in one batch (a failing operation leaves none of them), and
// its documents are indexed as a CRUD entry's are.
func TestApplyOps(t *testing.T) {
	s := openMem(t)
	coll := mustColl(t, s, "app", "a")
	mustIndex(t, s, coll, spec("u_1", d("u", 1), "unique", true))
	mustInsert(t, s, coll, d("_id", 1, "u", 1))
	ns, ui := coll.NS(), coll.UUID
	op := func(kind string, o, o2 bson.D) bson.D {
		x := d("op", kind, "ns", ns, "ui", ui, "o", o)
		if o2 != nil {
			x = append(x, bson.E{Key: "o2", Value: o2})
		}
		return x
	}
	txn := func(ops ...any) func() *oplog.Entry {
		return func() *oplog.Entry {
			return next(s, oplog.Entry{Op: "c", NS: "admin.$cmd", O: d("applyOps", bson.A(ops)),
				Extra: d("lsid", d("id", bson.Binary{Subtype: 4, Data: make([]byte, 16)}), "txnNumber", int64(1))})
		}
	}
	for _, tc := range []struct {
		name string
		e    func() *oplog.Entry
		ok   bool
		want int // documents after
	}{
		{"insert two, update one", txn(op("i", d("_id", 2, "u", 2), d("_id", 2)), op("i", d("_id", 3, "u", 3), d("_id", 3)),
			op("u", d("$set", d("u", 4)), d("_id", 1))), true, 3},
		{"a failing op undoes the batch", txn(op("d", d("_id", 2), nil), op("i", d("_id", 5, "u", 3), d("_id", 5))), false, 3},
		{"delete", txn(op("d", d("_id", 2), nil)), true, 2},
	} {
		err := applyBatch(s, []*oplog.Entry{tc.e()})
		if (err == nil) != tc.ok {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if docs := drain(t, live(s, coll).Scan(false)); len(docs) != tc.want {
			t.Fatalf("%s: %d documents, want %d", tc.name, len(docs), tc.want)
		}
	}
	mustVerify(t, s)
}

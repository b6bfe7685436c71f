package session

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func lsid(b byte) bson.D {
	return bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: []byte{b, 1, 2, 3}}}}
}

func TestBeginAndRecord(t *testing.T) {
	tab := NewTable()
	k, _ := KeyOf(lsid(1))
	if err := tab.Begin(k, 5); err != nil {
		t.Fatal(err)
	}
	if _, ok := tab.Executed(k, 5, 0); ok {
		t.Fatal("statement recorded before it ran")
	}
	tab.Record(k, 5, 0, Stmt{Op: "i", ID: 1})
	if s, ok := tab.Executed(k, 5, 0); !ok || s.Op != "i" {
		t.Fatalf("Executed = %v %v", s, ok)
	}
	if _, ok := tab.Executed(k, 5, 1); ok {
		t.Fatal("statement 1 never ran")
	}
	if err := tab.Begin(k, 4); !mongoerr.Is(err, mongoerr.TransactionTooOld) {
		t.Fatalf("older txnNumber: err %v, want TransactionTooOld", err)
	}
	if err := tab.Begin(k, 6); err != nil {
		t.Fatal(err)
	}
	if _, ok := tab.Executed(k, 5, 0); ok {
		t.Fatal("a newer txnNumber must forget the older statements")
	}
	tab.Record(k, 5, 1, Stmt{Op: "i"}) // a stale replay is ignored
	if _, ok := tab.Executed(k, 6, 1); ok {
		t.Fatal("stale record leaked into the newer transaction")
	}
}

func TestObserveOplogEntries(t *testing.T) {
	tab := NewTable()
	entries := []bson.D{
		{{Key: "op", Value: "i"}, {Key: "o", Value: bson.D{{Key: "_id", Value: 7}}}, {Key: "lsid", Value: lsid(2)}, {Key: "txnNumber", Value: int64(3)}, {Key: "stmtId", Value: int32(0)}},
		{{Key: "op", Value: "u"}, {Key: "o", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 1}}}}}, {Key: "o2", Value: bson.D{{Key: "_id", Value: 8}}}, {Key: "lsid", Value: lsid(2)}, {Key: "txnNumber", Value: int64(3)}, {Key: "stmtId", Value: int32(1)}},
		{{Key: "op", Value: "i"}, {Key: "o", Value: bson.D{{Key: "_id", Value: 9}}}}, // not retryable
	}
	for _, e := range entries {
		tab.Observe(e)
	}
	k, _ := KeyOf(lsid(2))
	if s, ok := tab.Executed(k, 3, 0); !ok || s.Op != "i" || s.ID != 7 {
		t.Fatalf("stmt 0 = %+v %v", s, ok)
	}
	if s, ok := tab.Executed(k, 3, 1); !ok || s.Op != "u" || s.ID != 8 {
		t.Fatalf("stmt 1 = %+v %v", s, ok)
	}
	if tab.Len() != 1 {
		t.Fatalf("sessions = %d, want 1", tab.Len())
	}
}

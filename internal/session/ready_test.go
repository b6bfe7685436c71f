package session

import (
	"testing"
	"time"
)

// TestLookupsWaitForRebuild: while a rebuild runs, Begin, Executed,
// TxnCommitted and Reset wait for it; records made meanwhile and those it
// replays combine by transaction number whatever their order.
func TestLookupsWaitForRebuild(t *testing.T) {
	tbl := NewTable()
	done := tbl.StartRebuild()
	k := Key("s1")
	tbl.Record(k, 7, 0, Stmt{Op: "i", ID: 1}) // a new write during the rebuild
	got := make(chan bool, 1)
	go func() {
		_, ok := tbl.Executed(k, 5, 3)
		got <- ok
	}()
	select {
	case <-got:
		t.Fatal("Executed answered before the rebuild finished")
	case <-time.After(50 * time.Millisecond):
	}
	tbl.Record(k, 5, 3, Stmt{Op: "u"}) // replayed: older than txn 7, ignored
	tbl.RecordCommit(Key("s2"), 4)
	done()
	if ok := <-got; ok {
		t.Fatal("an older transaction's statement replaced the newer record")
	}
	if s, ok := tbl.Executed(k, 7, 0); !ok || s.Op != "i" {
		t.Fatalf("record made during the rebuild lost: %+v %v", s, ok)
	}
	if !tbl.TxnCommitted(Key("s2"), 4) {
		t.Fatal("replayed commit lost")
	}
	if err := tbl.Begin(k, 6); err == nil {
		t.Fatal("Begin with an older txnNumber accepted")
	}
}

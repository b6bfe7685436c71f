package changestream

import (
	"context"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/vfs"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/storage"
)

// logFixture is an in-memory oplog with a settable commit point.
type logFixture struct {
	log       *oplog.Log
	eng       *storage.Engine
	committed bson.Timestamp
	now       time.Time
}

func newLogFixture(t *testing.T) *logFixture {
	t.Helper()
	eng, err := storage.Open(storage.Options{InMemory: true, FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	f := &logFixture{eng: eng, now: time.Unix(1000, 0)}
	f.log, err = oplog.Open(eng, oplog.Options{Now: func() time.Time { return f.now }})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// insert appends an insert of {_id: id} on ns and returns its ts.
func (f *logFixture) insert(t *testing.T, ns string, id int32) bson.Timestamp {
	t.Helper()
	b := f.eng.NewBatch()
	s := f.log.Reserve()
	doc := bson.D{{Key: "_id", Value: id}}
	if err := f.log.Append(b, s, &oplog.Entry{Op: oplog.OpInsert, NS: ns, O: doc, O2: doc}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.Commit(b, false); err != nil {
		t.Fatal(err)
	}
	f.log.Commit(s)
	return s.TS
}

func (f *logFixture) source() Source {
	return Source{Log: f.log, Committed: func() bson.Timestamp { return f.committed },
		WaitCommitted: func(ctx context.Context, ts bson.Timestamp) error { return nil }}
}

func ids(s *Stream) []any {
	var out []any
	for {
		doc, ok := s.Next()
		if !ok {
			return out
		}
		out = append(out, lookupField(lookupField(doc, "documentKey").(bson.D), "_id"))
	}
}

// TestStreamReadsCommittedOnly: a stream returns the scope's events up
// to the commit point only, then the rest once it moves; its resume
// token advances past entries of other collections.
func TestStreamReadsCommittedOnly(t *testing.T) {
	f := newLogFixture(t)
	scope := Scope{DB: "db", Coll: "c"}
	s, err := Open(f.source(), scope, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts1 := f.insert(t, "db.c", 1)
	f.insert(t, "db.other", 2)
	ts3 := f.insert(t, "db.c", 3)
	f.committed = ts1
	if got := ids(s); len(got) != 1 || got[0] != int32(1) {
		t.Fatalf("committed up to the first: %v, want [1]", got)
	}
	f.committed = ts3
	if got := ids(s); len(got) != 1 || got[0] != int32(3) {
		t.Fatalf("all committed: %v, want [3]", got)
	}
	ts4 := f.insert(t, "db.other", 4)
	f.committed = ts4
	if got := ids(s); len(got) != 0 {
		t.Fatalf("other collection: %v, want none", got)
	}
	if s.ResumeToken() != HighWaterMark(ts4) {
		t.Errorf("resume token %+v, want the high-water mark at %v", s.ResumeToken(), ts4)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if s.Wait(ctx) == nil {
		t.Error("Wait with a done context returned nil")
	}
}

// TestStreamResumeChecks: a resume from an event whose entry is not in
// the oplog is ChangeStreamFatalError; from before the oplog's first
// entry, ChangeStreamHistoryLost.
func TestStreamResumeChecks(t *testing.T) {
	f := newLogFixture(t)
	ts1 := f.insert(t, "db.c", 1)
	f.now = f.now.Add(time.Hour)
	ts2 := f.insert(t, "db.c", 2)
	f.committed = ts2
	foreign := Token{TS: bson.Timestamp{T: ts1.T + 1}} // between the two entries
	s, err := Open(f.source(), Scope{DB: "db", Coll: "c"}, Options{ResumeAfter: &foreign})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Next(); ok || !mongoerr.Is(s.Err(), mongoerr.ChangeStreamFatalError) {
		t.Errorf("resume from a token not in the oplog: %v, want ChangeStreamFatalError", s.Err())
	}
	good := Token{TS: ts1}
	s, err = Open(f.source(), Scope{DB: "db", Coll: "c"}, Options{ResumeAfter: &good})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(s); len(got) != 1 || got[0] != int32(2) {
		t.Errorf("resume after the first: %v, want [2]", got)
	}
	// The postBatchResumeToken of a stream started at the first entry
	// marks the time just before it: resuming from it is not history lost.
	atFirst, err := Open(f.source(), Scope{DB: "db", Coll: "c"}, Options{StartAtOperationTime: &ts1})
	if err != nil {
		t.Fatal(err)
	}
	mark := atFirst.ResumeToken()
	s, err = Open(f.source(), Scope{DB: "db", Coll: "c"}, Options{ResumeAfter: &mark})
	if err != nil {
		t.Fatalf("resume from the start mark: %v", err)
	}
	if got := ids(s); len(got) != 2 {
		t.Errorf("resume from the start mark: %v, want [1 2]", got)
	}
	old := bson.Timestamp{T: 1}
	if _, err := Open(f.source(), Scope{DB: "db"}, Options{StartAtOperationTime: &old}); !mongoerr.Is(err, mongoerr.ChangeStreamHistoryLost) {
		t.Errorf("start before the oplog: %v, want ChangeStreamHistoryLost", err)
	}
}

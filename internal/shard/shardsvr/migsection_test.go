package shardsvr

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func xDoc(x any) bson.D { return bson.D{{Key: "x", Value: x}} }

func stmt(q bson.D) bson.D { return bson.D{{Key: "q", Value: q}} }

// TestRangeSectionBlocks: with [0, MaxKey) of db.c in its migration
// section, which commands wait.
func TestRangeSectionBlocks(t *testing.T) {
	s := newState(&memSource{}, true)
	cm := table(t, "sh0")
	m, err := relabel(cm, xDoc(0), xDoc(bson.MaxKey{}))
	if err != nil {
		t.Fatal(err)
	}
	sec := &migSection{view: m, p: cm.Pattern()}
	_ = s
	for _, tc := range []struct {
		name string
		cmd  bson.D
		want bool
	}{
		{"find in the range", bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: xDoc(5)}}, false},
		{"aggregate", bson.D{{Key: "aggregate", Value: "c"}}, false},
		{"insert in the range", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{xDoc(5)}}}, true},
		{"insert elsewhere", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{xDoc(-5), xDoc(-1)}}}, false},
		{"insert on both sides", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{xDoc(-5), xDoc(7)}}}, true},
		{"insert as a document sequence not seen", bson.D{{Key: "insert", Value: "c"}}, true},
		{"update by key in the range", bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{stmt(xDoc(3))}}}, true},
		{"update by key elsewhere", bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{stmt(xDoc(-3))}}}, false},
		{"update below the range", bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{stmt(bson.D{{Key: "x", Value: bson.D{{Key: "$lt", Value: -1}}}})}}}, false},
		{"update crossing into the range", bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{stmt(bson.D{{Key: "x", Value: bson.D{{Key: "$lt", Value: 1}}}})}}}, true},
		{"update without the key", bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{stmt(bson.D{{Key: "y", Value: 1}})}}}, true},
		{"delete by key elsewhere", bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{stmt(xDoc(-9))}}}, false},
		{"delete by key in the range", bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{stmt(xDoc(9))}}}, true},
		{"findAndModify elsewhere", bson.D{{Key: "findAndModify", Value: "c"}, {Key: "query", Value: xDoc(-2)}}, false},
		{"findAndModify in the range", bson.D{{Key: "findAndModify", Value: "c"}, {Key: "query", Value: xDoc(2)}}, true},
	} {
		if got := sec.blocks(tc.cmd); got != tc.want {
			t.Errorf("%s: blocks %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRangeSection: entering waits for the operations admitted before
// (not for those admitted after); a write to the range waits while it is
// held, one elsewhere and a read do not; a second section conflicts; the
// exit lets the waiting write go; a range that is not a chunk is refused.
func TestRangeSection(t *testing.T) {
	ctx := context.Background()
	s := newState(&memSource{}, true)
	cm := table(t, "sh0")
	before, err := s.BeginOp(ctx, "db.c", bson.D{{Key: "find", Value: "c"}})
	if err != nil {
		t.Fatal(err)
	}
	entered := make(chan error, 1)
	go func() { entered <- s.EnterRangeSection(ctx, cm, xDoc(0), xDoc(bson.MaxKey{}), 10*time.Second) }()
	time.Sleep(30 * time.Millisecond)
	// Admitted after the section began: a read and a write elsewhere go
	// on at once and do not hold up the entry.
	for _, cmd := range []bson.D{{{Key: "find", Value: "c"}}, {{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{xDoc(-1)}}}} {
		short, cancel := context.WithTimeout(ctx, time.Second)
		release, err := s.BeginOp(short, "db.c", cmd)
		cancel()
		if err != nil {
			t.Fatalf("%v waited: %v", cmd, err)
		}
		defer release()
	}
	select {
	case err := <-entered:
		t.Fatalf("entered (%v) while an operation admitted before runs", err)
	case <-time.After(50 * time.Millisecond):
	}
	before()
	if err := <-entered; err != nil {
		t.Fatal(err)
	}
	inRange := bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{xDoc(1)}}}
	short, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel()
	if _, err := s.BeginOp(short, "db.c", inRange); !mongoerr.Is(err, mongoerr.ExceededTimeLimit) {
		t.Fatalf("a write to the range during the section: %v, want ExceededTimeLimit", err)
	}
	if err := s.EnterRangeSection(ctx, cm, xDoc(bson.MinKey{}), xDoc(0), time.Second); !mongoerr.Is(err, mongoerr.ConflictingOperationInProgress) {
		t.Fatalf("a second section: %v, want ConflictingOperationInProgress", err)
	}
	admitted := make(chan error, 1)
	go func() {
		release, err := s.BeginOp(ctx, "db.c", inRange)
		if err == nil {
			release()
		}
		admitted <- err
	}()
	time.Sleep(30 * time.Millisecond)
	s.ExitRangeSection("db.c")
	select {
	case err := <-admitted:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting write was not admitted after the exit")
	}
	if err := s.EnterRangeSection(ctx, cm, xDoc(5), xDoc(bson.MaxKey{}), time.Second); !mongoerr.Is(err, mongoerr.ConflictingOperationInProgress) {
		t.Fatalf("a range that is not a chunk: %v", err)
	}
}

// TestHoldWrites: a section held at step-up (no routing table) blocks
// every write to the namespace and no read, until the exit.
func TestHoldWrites(t *testing.T) {
	ctx := context.Background()
	s := newState(&memSource{}, true)
	s.HoldWrites("db.c", 10*time.Second)
	short, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel()
	for _, cmd := range []bson.D{
		{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{xDoc(-1)}}},
		{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{stmt(xDoc(-9))}}},
	} {
		if _, err := s.BeginOp(short, "db.c", cmd); !mongoerr.Is(err, mongoerr.ExceededTimeLimit) {
			t.Fatalf("%v while held: %v, want ExceededTimeLimit", cmd, err)
		}
	}
	release, err := s.BeginOp(ctx, "db.c", bson.D{{Key: "find", Value: "c"}})
	if err != nil {
		t.Fatalf("a read while held: %v", err)
	}
	release()
	s.ExitRangeSection("db.c")
	release, err = s.BeginOp(short, "db.c", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{xDoc(1)}}})
	if err != nil {
		t.Fatalf("a write after the exit: %v", err)
	}
	release()
}

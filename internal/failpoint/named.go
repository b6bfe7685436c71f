package failpoint

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Point is one of MongoDB's named fail points besides failCommand: a mode
// (alwaysOn, off, {times, skip}) and a data document that the hook where
// the point acts reads. Points are process-wide, as mongod's are.
//
// Invariant: an unarmed point costs one atomic load per Check.
type Point struct {
	name  string
	armed atomic.Bool // false: Check never locks
	mu    sync.Mutex
	m     mode   // REQUIRES: mu
	data  bson.D // REQUIRES: mu
}

// The named fail points relaydb implements, with MongoDB's names and
// semantics; configureFailPoint refuses any other name.
var (
	// OnPrimaryTransactionalWrite acts on each statement of a retryable
	// write on the primary (package exec): data closeConnection (default
	// true) closes the client's connection once the statement ran;
	// failBeforeCommitExceptionCode fails the statement with that code
	// before it commits, so the write is not reflected.
	OnPrimaryTransactionalWrite = register("onPrimaryTransactionalWrite")
	// MaxTimeAlwaysTimeOut fails every operation that has a time limit
	// (maxTimeMS, or a cursor opened with one) with MaxTimeMSExpired.
	MaxTimeAlwaysTimeOut = register("maxTimeAlwaysTimeOut")
	// StopReplProducer stops a secondary's replication: fetched oplog
	// batches wait unapplied while it is on.
	StopReplProducer = register("stopReplProducer")
	// FailGetMoreAfterCursorCheckout fails a getMore with data's errorCode
	// once its cursor is checked out (a change stream's resumable codes
	// then carry ResumableChangeStreamError).
	FailGetMoreAfterCursorCheckout = register("failGetMoreAfterCursorCheckout")
)

var registry = map[string]*Point{}

func register(name string) *Point {
	p := &Point{name: name}
	registry[name] = p
	return p
}

// Lookup returns the named fail point; nil when relaydb has none by that
// name.
func Lookup(name string) *Point { return registry[name] }

// Names lists the fail points configureFailPoint accepts, sorted.
func Names() []string {
	out := []string{"failCommand"}
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Name is the fail point's MongoDB name.
func (p *Point) Name() string { return p.name }

// Configure applies a configureFailPoint request's mode and data.
func (p *Point) Configure(md any, data bson.D) error {
	if md == nil {
		return mongoerr.New(mongoerr.BadValue, "Missing mode")
	}
	nm := mode{times: -1}
	if err := nm.setMode(md); err != nil {
		return err
	}
	p.mu.Lock()
	p.m, p.data = nm, data
	p.armed.Store(nm.on)
	p.mu.Unlock()
	return nil
}

// Check consumes one activation and returns the point's data; false when
// the point does not act now.
func (p *Point) Check() (bson.D, bool) {
	if !p.armed.Load() {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	ok := p.m.consume()
	p.armed.Store(p.m.on)
	return p.data, ok
}

// On reports whether the point is armed without consuming an activation
// (for points polled in a loop, such as stopReplProducer).
func (p *Point) On() bool { return p.armed.Load() }

// Configure sets the fail point name as configureFailPoint asks; failCommand
// goes to fc (the process's own, on a data node or a router).
func Configure(fc *FailCommand, name, md any, data bson.D) error {
	n, _ := name.(string)
	if n == "failCommand" {
		return fc.Configure(name, md, data)
	}
	if p := Lookup(n); p != nil {
		return p.Configure(md, data)
	}
	return mongoerr.New(mongoerr.BadValue, "Cannot configure fail point %v: relaydb supports only %s", name, strings.Join(Names(), ", "))
}

// TxnWrite is how OnPrimaryTransactionalWrite acts on one statement.
type TxnWrite struct {
	CloseConn bool  // close the client's connection after the statement
	Err       error // fail the statement before it commits; nil: commit
}

// CheckTxnWrite consumes one activation of onPrimaryTransactionalWrite;
// nil when it does not act.
func CheckTxnWrite() *TxnWrite {
	data, ok := OnPrimaryTransactionalWrite.Check()
	if !ok {
		return nil
	}
	tw := &TxnWrite{CloseConn: true}
	if v, ok := bsonx.Get(data, "closeConnection"); ok {
		tw.CloseConn, _ = v.(bool)
	}
	if v, ok := bsonx.Get(data, "failBeforeCommitExceptionCode"); ok {
		n, _ := bsonx.AsInt64(v)
		tw.Err = mongoerr.New(mongoerr.Code(n), "Failing write due to failpoint onPrimaryTransactionalWrite. The write must not be reflected.")
	}
	return tw
}

// maxCloseMarks bounds the pending connection-close marks.
const maxCloseMarks = 1024

// closeMarks are the retryable writes (session, txnNumber) whose
// connection onPrimaryTransactionalWrite closes, until the command layer
// takes the mark after the command ran.
var closeMarks = struct {
	n  atomic.Int32 // len(m): TakeClose is one atomic load when none
	mu sync.Mutex
	m  map[closeKey]bool
}{m: map[closeKey]bool{}}

type closeKey struct {
	session string
	txn     int64
}

// MarkClose notes that the retryable write (session, txn) must close its
// client's connection instead of replying.
func MarkClose(session string, txn int64) {
	closeMarks.mu.Lock()
	defer closeMarks.mu.Unlock()
	if len(closeMarks.m) >= maxCloseMarks {
		clear(closeMarks.m) // marks nobody took: forget them
	}
	closeMarks.m[closeKey{session, txn}] = true
	closeMarks.n.Store(int32(len(closeMarks.m)))
}

// ClosePending reports whether any close mark waits (one atomic load).
func ClosePending() bool { return closeMarks.n.Load() > 0 }

// TakeClose reports (and forgets) whether the retryable write (session,
// txn) was marked to close its connection.
func TakeClose(session string, txn int64) bool {
	if closeMarks.n.Load() == 0 {
		return false
	}
	closeMarks.mu.Lock()
	defer closeMarks.mu.Unlock()
	k := closeKey{session, txn}
	ok := closeMarks.m[k]
	delete(closeMarks.m, k)
	closeMarks.n.Store(int32(len(closeMarks.m)))
	return ok
}

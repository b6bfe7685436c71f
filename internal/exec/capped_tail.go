package exec

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/iterx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/query"
)

// Tailable cursors on capped collections: the documents that match in
// natural order, then every matching document inserted later, read from
// the collection's insert entries in the oplog (so a new document is
// returned once, in insertion order, whatever its _id).
//
// Invariant: the scan and the oplog position agree: the scan opens while
// no write is in flight (the visibility point is the same, with every
// allocated timestamp retired, before and after it opens), so each
// document is either in the scan or after the position, not both.

// maxTailAlign bounds the attempts to open the scan between writes; under
// a write storm the last attempt is kept (a document may then be returned
// twice).
const maxTailAlign = 10

// FindCappedTail opens a tailable find on db.coll, which must be capped.
func (e *Engine) FindCappedTail(db, coll string, p FindParams) (Iterator, error) {
	col := e.cat.Collection(db, coll)
	if col == nil {
		return Empty(), nil
	}
	if _, _, capped := CappedLimits(col.Options); !capped {
		return nil, mongoerr.New(mongoerr.BadValue, "error processing query: tailable cursor requested on non capped collection")
	}
	if len(p.Sort) > 0 && !(len(p.Sort) == 1 && p.Sort[0].Key == "$natural" && isOneValue(p.Sort[0].Value)) {
		return nil, mongoerr.New(mongoerr.BadValue, "error processing query: cannot use tailable option with a sort other than {$natural: 1}")
	}
	m, err := query.CompileOptions(p.Filter, query.Options{Vars: p.Vars}) // $where allowed, as in mongod
	if err != nil {
		return nil, err
	}
	t := &cappedTail{log: e.cat.Oplog(), ns: col.NS(), m: m, exists: func(id any) (bool, error) {
		_, found, err := e.cat.DocByID(db, coll, id)
		return found, err
	}}
	if len(p.Projection) > 0 {
		if t.proj, err = query.CompileProjection(p.Projection); err != nil {
			return nil, err
		}
	}
	p.Sort = nil
	if err := e.alignScan(t, db, coll, p); err != nil {
		return nil, err
	}
	return t, nil
}

func isOneValue(v any) bool {
	n, ok := bsonx.AsFloat64(v)
	return ok && n == 1
}

// alignScan opens t's scan at a point between writes and sets t.after to
// the visibility point there.
func (e *Engine) alignScan(t *cappedTail, db, coll string, p FindParams) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	for try := 0; ; try++ {
		_ = t.log.WaitRetired(ctx)
		before := t.log.Visible()
		it, _, err := e.Find(db, coll, p)
		if err != nil {
			return err
		}
		first, ok := it.Next() // opens the scan
		_ = t.log.WaitRetired(ctx)
		if t.log.Visible() == before || try == maxTailAlign-1 {
			t.scan, t.first, t.after = it, first, before
			if !ok {
				t.first = nil
			}
			return nil
		}
		_ = it.Close()
	}
}

// cappedTail yields the scan, then the oplog's matching inserts.
type cappedTail struct {
	log   *oplog.Log
	ns    string
	m     *query.Matcher
	proj  *query.Projection
	scan  Iterator // nil once exhausted
	first *Row     // the scan's first row, read when it opened
	after bson.Timestamp
	buf   [][]byte
	err   error
	// exists, lastID and hasLast keep the cursor's position
	// (capped_position.go).
	exists  positionLookup
	lastID  any
	hasLast bool
}

func (t *cappedTail) Next() (*Row, bool) {
	if t.err != nil {
		return nil, false
	}
	if t.scan != nil {
		if r := t.first; r != nil {
			t.first = nil
			return t.track(r), true
		}
		if r, ok := t.scan.Next(); ok {
			return t.track(r), true
		}
		if t.err = t.scan.Err(); t.err != nil {
			return nil, false
		}
		_ = t.scan.Close()
		t.scan = nil
	}
	return t.nextInsert()
}

// nextInsert returns the next matching document inserted after t.after;
// false at the end of visible entries (a later call may find more).
func (t *cappedTail) nextInsert() (*Row, bool) {
	for {
		if len(t.buf) == 0 && !t.refill() {
			return nil, false
		}
		raw := bson.Raw(t.buf[0])
		t.buf = t.buf[1:]
		if ts, i, ok := raw.Lookup("ts").TimestampOK(); ok {
			t.after = bson.Timestamp{T: ts, I: i}
		}
		if raw.Lookup("op").StringValue() != "i" || raw.Lookup("ns").StringValue() != t.ns {
			continue
		}
		if r, ok := t.row(raw.Lookup("o").Document()); ok || t.err != nil {
			return t.track(r), ok
		}
	}
}

func (t *cappedTail) refill() bool {
	if t.positionLost() {
		return false
	}
	if first := t.log.First(); !t.after.IsZero() && !first.IsZero() && first.After(t.after) {
		t.err = mongoerr.New(mongoerr.CappedPositionLost, "CollectionScan died due to position in capped collection being deleted")
		return false
	}
	raws, err := t.log.ReadRaw(t.after, false, oplogBatch)
	if err != nil {
		t.err = err
		return false
	}
	t.buf = raws
	return len(raws) > 0
}

// row matches and projects one inserted document.
func (t *cappedTail) row(raw bson.Raw) (*Row, bool) {
	doc, err := bsonx.Decode(raw)
	if err != nil {
		t.err = err
		return nil, false
	}
	if !t.m.Match(doc) {
		t.err = t.m.Err() // a failing $where fails the cursor
		return nil, false
	}
	if t.proj == nil {
		return &Row{Raw: raw, Doc: doc, Pos: -1}, true
	}
	out, err := projectDoc(doc, t.proj, -1)
	if err != nil {
		t.err = err
		return nil, false
	}
	b, err := bsonx.Encode(out)
	if err != nil {
		t.err = err
		return nil, false
	}
	return &Row{Raw: b, Doc: out, Pos: -1}, true
}

func (t *cappedTail) Err() error { return t.err }

func (t *cappedTail) Close() error {
	if t.scan != nil {
		err := t.scan.Close()
		t.scan = nil
		return err
	}
	return nil
}

// CappedWaiter is the awaitData wait of a tailable cursor on a capped
// collection: it blocks until an oplog entry newer than the last one read
// is visible.
func (e *Engine) CappedWaiter(it Iterator) func(ctx context.Context) error {
	t, ok := it.(*cappedTail)
	if !ok {
		return nil
	}
	return func(ctx context.Context) error { return t.log.Wait(ctx, t.after) }
}

var _ iterx.Iterator[*Row] = (*cappedTail)(nil)

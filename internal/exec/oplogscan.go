package exec

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/iterx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/oplog"
)

// oplogBatch is how many entries one read of the oplog fetches.
const oplogBatch = 512

// isOplog reports whether db.coll is local.oplog.rs.
func isOplog(db, coll string) bool { return db == "local" && coll == "oplog.rs" }

// findOplog reads local.oplog.rs: in ts order from the lower bound of a
// {ts: {$gt|$gte: T}} filter, or newest first for {$natural: -1}. The scan
// stops at the visibility point, so a reader never sees a hole.
func (e *Engine) findOplog(c *compiled, p FindParams) (Iterator, *Plan, error) {
	l := e.cat.Oplog()
	var it Iterator
	if naturalReverse(p.Sort) {
		it = &oplogReverseIter{log: l}
	} else {
		start, incl := tsLowerBound(p.Filter)
		it = &oplogIter{log: l, after: start, incl: incl}
	}
	if len(p.Filter) > 0 && !(isTSLowerBoundOnly(p.Filter) && !naturalReverse(p.Sort)) {
		it = &filterIter{in: it, m: c.m, vars: p.Vars}
	}
	if c.sort != nil && !naturalReverse(p.Sort) {
		var err error
		if it, err = sortRows(it, c.sort, 0, p.AllowDiskUse); err != nil {
			return nil, nil, err
		}
	}
	if p.Skip > 0 || p.Limit > 0 {
		it = &skipLimitIter{in: it, skip: p.Skip, limit: p.Limit}
	}
	if c.proj != nil {
		it = &projectIter{in: it, p: c.proj}
	}
	return iterx.Checked(it, true), &Plan{Kind: "COLLSCAN"}, nil
}

// OplogWaiter returns the awaitData wait for a tailable oplog cursor: it
// blocks until an entry newer than the last one read is visible.
func (e *Engine) OplogWaiter(it Iterator) func(ctx context.Context) error {
	oi := findOplogIter(it)
	if oi == nil {
		return nil
	}
	return func(ctx context.Context) error { return oi.log.Wait(ctx, oi.after) }
}

// findOplogIter digs the oplog source out of a pipeline of wrappers.
func findOplogIter(it Iterator) *oplogIter {
	for {
		switch t := it.(type) {
		case *oplogIter:
			return t
		case *filterIter:
			it = t.in
		case *skipLimitIter:
			it = t.in
		case *projectIter:
			it = t.in
		case interface{ Unwrap() Iterator }: // iterx.Checked
			it = t.Unwrap()
		default:
			return nil
		}
	}
}

// tsLowerBound extracts {ts: {$gt/$gte: T}} from a filter.
func tsLowerBound(filter bson.D) (bson.Timestamp, bool) {
	p := predicates(filter)["ts"]
	if p == nil {
		return bson.Timestamp{}, true
	}
	if len(p.eq) == 1 {
		if ts, ok := p.eq[0].(bson.Timestamp); ok {
			return ts, true
		}
	}
	if ts, ok := p.low.(bson.Timestamp); ok {
		return ts, p.lowIncl
	}
	return bson.Timestamp{}, true
}

// isTSLowerBoundOnly reports whether filter is exactly {ts: {$gt|$gte: T}}
// with a Timestamp T, the oplog fetcher's query: the forward scan starts
// at that bound, so matching each entry again (decoding it) would only
// repeat what the scan already guarantees.
func isTSLowerBoundOnly(filter bson.D) bool {
	if len(filter) != 1 || filter[0].Key != "ts" {
		return false
	}
	cond, ok := filter[0].Value.(bson.D)
	if !ok || len(cond) != 1 || (cond[0].Key != "$gt" && cond[0].Key != "$gte") {
		return false
	}
	_, ok = cond[0].Value.(bson.Timestamp)
	return ok
}

// oplogIter reads the oplog forward in batches. It is tailable: at the
// end of visible data Next returns false but can be called again.
//
// Once it has returned an entry, each refill first finds that entry again
// (same ts and term): if a rollback or an initial sync truncated the
// oplog under the cursor, it fails with CappedPositionLost, as a capped
// collection's cursor does when its position is deleted, instead of
// going on with entries that do not follow the ones it returned.
type oplogIter struct {
	log      *oplog.Log
	after    bson.Timestamp
	incl     bool
	lastTerm bson.RawValue // "t" of the last entry returned; zero before one
	buf      [][]byte
	err      error
	closed   bool
}

func (o *oplogIter) Next() (*Row, bool) {
	if o.err != nil || o.closed {
		return nil, false
	}
	if len(o.buf) == 0 && !o.refill() {
		return nil, false
	}
	raw := o.buf[0]
	o.buf = o.buf[1:]
	if t, i, ok := bson.Raw(raw).Lookup("ts").TimestampOK(); ok {
		o.after, o.incl = bson.Timestamp{T: t, I: i}, false
		o.lastTerm = bson.Raw(raw).Lookup("t")
	}
	return &Row{Raw: raw, Pos: -1}, true
}

// refill reads the next batch after the position, checking the position
// still holds the entry last returned.
func (o *oplogIter) refill() bool {
	positioned := o.lastTerm.Type != 0
	raws, err := o.log.ReadRaw(o.after, o.incl || positioned, oplogBatch)
	if err == nil && positioned {
		if len(raws) == 0 || !sameEntry(raws[0], o.after, o.lastTerm) {
			err = mongoerr.New(mongoerr.CappedPositionLost,
				"CollectionScan died due to position in capped collection being deleted. Last seen record id: %v", o.after)
		} else {
			raws = raws[1:]
		}
	}
	if err != nil || len(raws) == 0 {
		o.err = err
		return false
	}
	o.buf = raws
	return true
}

// sameEntry reports whether raw is the entry at ts with term t.
func sameEntry(raw []byte, ts bson.Timestamp, t bson.RawValue) bool {
	rt, ri, ok := bson.Raw(raw).Lookup("ts").TimestampOK()
	return ok && rt == ts.T && ri == ts.I && bson.Raw(raw).Lookup("t").Equal(t)
}

func (o *oplogIter) Err() error { return o.err }

func (o *oplogIter) Close() error {
	o.buf, o.closed = nil, true
	return nil
}

// oplogReverseIter reads the oplog newest first, in batches, so a filter
// and a limit apply to entries in that order without reading it all.
type oplogReverseIter struct {
	log    *oplog.Log
	before bson.Timestamp // zero: from the visibility point down
	buf    [][]byte
	done   bool
	err    error
}

func (o *oplogReverseIter) Next() (*Row, bool) {
	if len(o.buf) == 0 {
		if o.done {
			return nil, false
		}
		raws, err := o.log.ReadReverse(o.before, oplogBatch)
		if err != nil {
			o.done, o.err = true, err
			return nil, false
		}
		if len(raws) < oplogBatch {
			o.done = true
		}
		if len(raws) == 0 {
			return nil, false
		}
		o.buf = raws
	}
	raw := o.buf[0]
	o.buf = o.buf[1:]
	if t, i, ok := bson.Raw(raw).Lookup("ts").TimestampOK(); ok {
		o.before = bson.Timestamp{T: t, I: i}
	}
	return &Row{Raw: raw, Pos: -1}, true
}

func (o *oplogReverseIter) Err() error { return o.err }

func (o *oplogReverseIter) Close() error {
	o.buf, o.done = nil, true
	return nil
}

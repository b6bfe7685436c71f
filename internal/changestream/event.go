package changestream

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
)

// Event is one change event built from an oplog entry.
type Event struct {
	Token Token
	Doc   bson.D
	// Invalidate marks the invalidate event: the stream ends after it.
	Invalidate bool
	// Lookup, when set, asks the stream to fill the event's fullDocument
	// with the current document of LookupNS (db, coll) whose _id is
	// LookupID (fullDocument: updateLookup); the field is already in Doc,
	// null, at index LookupField.
	Lookup      bool
	LookupNS    [2]string
	LookupID    any
	LookupField int
}

// txnInfo is the lsid and txnNumber of a transaction's applyOps entry.
type txnInfo struct{ fields bson.D }

// Events returns the events e yields for a stream of scope s with options
// o, in order. It never fails on an entry it does not understand: such an
// entry yields no event.
func Events(e *oplog.Entry, s Scope, o Options) ([]Event, error) {
	if o.FromRouter && fromMigrate(e) {
		return nil, nil // a chunk migration's write (migrate.go)
	}
	b := builder{e: e, s: s, o: o}
	if e.Op == oplog.OpCommand && len(e.O) > 0 && e.O[0].Key == "applyOps" {
		return b.applyOps()
	}
	return b.entry(e, 0, txnInfo{})
}

type builder struct {
	e *oplog.Entry // the oplog entry (the applyOps entry for a transaction)
	s Scope
	o Options
}

// applyOps unwinds a transaction's entry: one event per operation, its
// token's Index the operation's position.
func (b builder) applyOps() ([]Event, error) {
	ops, _ := b.e.O[0].Value.(bson.A)
	txn := txnInfo{}
	for _, f := range b.e.Extra {
		if f.Key == "lsid" || f.Key == "txnNumber" {
			txn.fields = append(txn.fields, f)
		}
	}
	var out []Event
	for i, raw := range ops {
		d, ok := raw.(bson.D)
		if !ok {
			return nil, fmt.Errorf("changestream: applyOps[%d] at %v is %T, not a document", i, b.e.TS, raw)
		}
		inner, err := oplog.FromDoc(d)
		if err != nil {
			return nil, fmt.Errorf("changestream: applyOps[%d] at %v: %w", i, b.e.TS, err)
		}
		evs, err := b.entry(inner, uint32(i), txn)
		if err != nil {
			return nil, err
		}
		out = append(out, evs...)
	}
	return out, nil
}

// entry builds the events of one operation (an entry, or one operation of
// an applyOps entry at index i).
func (b builder) entry(op *oplog.Entry, i uint32, txn txnInfo) ([]Event, error) {
	switch op.Op {
	case oplog.OpInsert, oplog.OpUpdate, oplog.OpDelete:
		db, coll := splitNS(op.NS)
		if !b.s.watches(db, coll) {
			return nil, nil
		}
		ev, err := b.crud(op, db, coll, Token{TS: b.e.TS, Index: i})
		if err != nil {
			return nil, err
		}
		ev.Doc = append(ev.Doc, txn.fields...)
		return []Event{ev}, nil
	case oplog.OpCommand:
		return b.command(op, Token{TS: b.e.TS, Index: i}), nil
	case oplog.OpNoop:
		return b.noop(op, Token{TS: b.e.TS, Index: i}), nil // shardcollection.go
	}
	return nil, nil
}

// head is the fields every event opens with.
func (b builder) head(t Token, opType string, ui *bson.Binary) bson.D {
	d := bson.D{{Key: "_id", Value: t.Doc()}, {Key: "operationType", Value: opType},
		{Key: "clusterTime", Value: b.e.TS}, {Key: "wallTime", Value: bson.NewDateTimeFromTime(b.e.Wall)}}
	if b.o.ShowExpandedEvents && ui != nil {
		d = append(d, bson.E{Key: "collectionUUID", Value: *ui})
	}
	return d
}

func nsDoc(db, coll string) bson.D {
	if coll == "" {
		return bson.D{{Key: "db", Value: db}}
	}
	return bson.D{{Key: "db", Value: db}, {Key: "coll", Value: coll}}
}

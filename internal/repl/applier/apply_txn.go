package applier

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/oplog"
)

// applyOps applies a committed transaction's entry
// {op:"c", ns:"admin.$cmd", o:{applyOps:[{op, ns, ui, o, o2}, ...]}}:
// every operation in order, in the entry's one batch, so readers see all
// of the transaction or none of it. Each operation is applied as the
// CRUD entry it describes (idempotently).
func (a *entryApply) applyOps() error {
	v, _ := bsonx.Get(a.e.O, "applyOps")
	ops, ok := v.(bson.A)
	if !ok {
		return fmt.Errorf("applyOps entry: applyOps is %T, not an array", v)
	}
	for i, x := range ops {
		d, ok := x.(bson.D)
		if !ok {
			return fmt.Errorf("applyOps entry: operation %d is %T, not a document", i, x)
		}
		op, err := innerEntry(a.e, d)
		if err != nil {
			return fmt.Errorf("applyOps entry: operation %d: %w", i, err)
		}
		sub := *a
		sub.e = op
		if err := sub.effect(); err != nil {
			return fmt.Errorf("applyOps entry: operation %d (%s %s): %w", i, op.Op, op.NS, err)
		}
	}
	return nil
}

// innerEntry is one applyOps operation as an oplog entry of its own.
func innerEntry(outer *oplog.Entry, d bson.D) (*oplog.Entry, error) {
	e := &oplog.Entry{TS: outer.TS, Term: outer.Term}
	for _, f := range d {
		switch f.Key {
		case "op":
			e.Op, _ = f.Value.(string)
		case "ns":
			e.NS, _ = f.Value.(string)
		case "ui":
			if b, ok := f.Value.(bson.Binary); ok {
				e.UI = &b
			}
		case "o":
			e.O, _ = f.Value.(bson.D)
		case "o2":
			e.O2, _ = f.Value.(bson.D)
		}
	}
	switch e.Op {
	case oplog.OpInsert, oplog.OpUpdate, oplog.OpDelete:
		return e, nil
	}
	return nil, fmt.Errorf("unsupported op %q in applyOps", e.Op)
}

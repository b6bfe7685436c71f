package rollback

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/oplog"
)

// addApplyOps judges a transaction's commit entry: undoing it is undoing
// each document operation it holds (the documents are refetched from the
// sync source, or deleted if the source lacks them, like any CRUD entry's).
func (p *plan) addApplyOps(e *oplog.Entry) error {
	v, _ := bsonx.Get(e.O, "applyOps")
	ops, ok := v.(bson.A)
	if !ok {
		return fmt.Errorf("applyOps is %T, not an array", v)
	}
	for i, x := range ops {
		d, ok := x.(bson.D)
		if !ok {
			return fmt.Errorf("applyOps operation %d is %T", i, x)
		}
		op := &oplog.Entry{TS: e.TS, Term: e.Term}
		op.Op, _ = lookup(d, "op").(string)
		op.NS, _ = lookup(d, "ns").(string)
		if b, ok := lookup(d, "ui").(bson.Binary); ok {
			op.UI = &b
		}
		op.O, _ = lookup(d, "o").(bson.D)
		op.O2, _ = lookup(d, "o2").(bson.D)
		if op.Op == oplog.OpCommand {
			return fmt.Errorf("applyOps operation %d is a command", i)
		}
		if err := p.add(op); err != nil {
			return fmt.Errorf("applyOps operation %d: %w", i, err)
		}
	}
	return nil
}

func lookup(d bson.D, k string) any {
	v, _ := bsonx.Get(d, k)
	return v
}

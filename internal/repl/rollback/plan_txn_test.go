package rollback

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
)

// TestPlanApplyOps: undoing a transaction's commit entry is undoing each
// document operation it holds; a command inside one is unrecoverable.
func TestPlanApplyOps(t *testing.T) {
	ui := bson.Binary{Subtype: 4, Data: make([]byte, 16)}
	op := func(kind string, o, o2 bson.D) bson.D {
		d := bson.D{{Key: "op", Value: kind}, {Key: "ns", Value: "db.c"}, {Key: "ui", Value: ui}, {Key: "o", Value: o}}
		if o2 != nil {
			d = append(d, bson.E{Key: "o2", Value: o2})
		}
		return d
	}
	id := func(v int32) bson.D { return bson.D{{Key: "_id", Value: v}} }
	entry := func(ops ...any) *oplog.Entry {
		return &oplog.Entry{TS: bson.Timestamp{T: 9, I: 1}, Term: 2, Op: oplog.OpCommand, NS: "admin.$cmd",
			O: bson.D{{Key: "applyOps", Value: bson.A(ops)}}}
	}
	p, err := makePlan([]*oplog.Entry{entry(op("i", bson.D{{Key: "_id", Value: int32(1)}, {Key: "x", Value: 1}}, id(1)),
		op("u", bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 2}}}}, id(2)), op("d", id(3), nil), op("u", id(1), id(1)))})
	if err != nil {
		t.Fatal(err)
	}
	var got []any
	for _, d := range p.docs {
		got = append(got, d.id)
	}
	if len(got) != 3 || got[0] != int32(1) || got[1] != int32(2) || got[2] != int32(3) {
		t.Fatalf("documents to refetch: %v, want [1 2 3]", got)
	}
	_, err = makePlan([]*oplog.Entry{entry(bson.D{{Key: "op", Value: "c"}, {Key: "ns", Value: "db.$cmd"}, {Key: "o", Value: bson.D{{Key: "drop", Value: "c"}}}})})
	if !errors.Is(err, ErrUnrecoverable) {
		t.Fatalf("a command inside applyOps: %v, want ErrUnrecoverable", err)
	}
}

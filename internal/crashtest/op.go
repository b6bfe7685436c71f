package crashtest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// Op is one write command: how to send it and what its acknowledgement
// promises.
type Op interface {
	// Kind is the command's name (insert, create, aggregate$out, ...).
	Kind() string
	// String describes the op for logs, e.g. "drop crash_a.c1".
	String() string
	// Run sends the command with write concern wc; nil means acknowledged.
	Run(ctx context.Context, cl *mongo.Client, wc WriteConcern) error
	// Apply changes m as the acknowledged op must have.
	Apply(m *Model)
	// Partial returns the models, other than before and after Apply, that
	// an interrupted op may leave, given the observed state got (ops that
	// are not atomic in relaydb); nil for atomic ops.
	Partial(before *Model, got State) []*Model
}

// WriteConcern is the write concern sent with every op.
type WriteConcern struct {
	W        any           // 1 or "majority"
	J        bool          // j:true: wait for the journal (WAL) sync
	WTimeout time.Duration // sent as wtimeout on commands built by hand; 0 = none
}

// WJournal is {w: 1, j: true}, for one server.
var WJournal = WriteConcern{W: 1, J: true}

// WMajority is {w: "majority", j: true, wtimeout: 15s}, for a replica set.
var WMajority = WriteConcern{W: "majority", J: true, WTimeout: 15 * time.Second}

// Doc is the writeConcern document of a hand-built command.
func (wc WriteConcern) Doc() bson.D {
	d := bson.D{{Key: "w", Value: wc.W}, {Key: "j", Value: wc.J}}
	if wc.WTimeout > 0 {
		d = append(d, bson.E{Key: "wtimeout", Value: wc.WTimeout.Milliseconds()})
	}
	return d
}

func (wc WriteConcern) driver() *writeconcern.WriteConcern {
	j := wc.J
	return &writeconcern.WriteConcern{W: wc.W, Journal: &j}
}

// collection returns ns with wc as its write concern.
func collection(cl *mongo.Client, ns string, wc WriteConcern) *mongo.Collection {
	db, coll := splitNS(ns)
	return cl.Database(db).Collection(coll, options.Collection().SetWriteConcern(wc.driver()))
}

// runCommand sends cmd (which carries its writeConcern) on db and fails
// on ok:0 and on a writeConcernError, which the driver may not surface for
// RunCommand.
func runCommand(ctx context.Context, cl *mongo.Client, db string, cmd bson.D) error {
	raw, err := cl.Database(db).RunCommand(ctx, cmd).Raw()
	if err != nil {
		return err
	}
	if wce, err := raw.LookupErr("writeConcernError"); err == nil {
		return fmt.Errorf("writeConcernError: %s", wce)
	}
	return nil
}

// withWC appends the writeConcern field to a hand-built command.
func withWC(cmd bson.D, wc WriteConcern) bson.D {
	return append(cmd, bson.E{Key: "writeConcern", Value: wc.Doc()})
}

// ErrUnexpected marks a reply that contradicts the model (e.g. an update
// that matched nothing): a failure even while the server is up.
var ErrUnexpected = errors.New("crashtest: reply contradicts the model")

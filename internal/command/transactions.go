package command

import (
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Multi-document transactions do not exist yet (TODO(#14): transactions).
// Until they do, every statement of one (a command carrying autocommit or
// startTransaction) and commitTransaction/abortTransaction are refused
// with a clear error, so no statement a client believes transactional
// runs outside a transaction:
//   - a standalone answers IllegalOperation (20), as mongod does;
//   - a replica-set member answers NotImplemented (238) (mongod would run
//     the transaction).
// The router's own checks (one shard per transaction, router/txns.go)
// run before a statement reaches a shard.

// errNoTransactions is the error a transaction's statement gets.
func (d *Dispatcher) errNoTransactions() error {
	if d.repl == nil {
		return mongoerr.New(mongoerr.IllegalOperation, "Transaction numbers are only allowed on a replica set member or mongos")
	}
	return mongoerr.New(mongoerr.NotImplemented, "relaydb does not support multi-document transactions yet")
}

// checkTransaction refuses a statement of a multi-document transaction.
func (d *Dispatcher) checkTransaction(ctx *Ctx) error {
	_, auto := ctx.field("autocommit")
	_, start := ctx.field("startTransaction")
	if !auto && !start {
		return nil
	}
	return d.errNoTransactions()
}

// snapshotReads are the commands that take readConcern level "snapshot"
// outside a transaction (MongoDB 5.0+); the rest refuse it.
var snapshotReads = map[string]bool{"find": true, "aggregate": true, "distinct": true}

// checkSnapshotReadConcern refuses readConcern {level: "snapshot"} on a
// command that supports it only in a transaction (writes, list commands,
// count, ...), with MongoDB's InvalidOptions.
func checkSnapshotReadConcern(ctx *Ctx) error {
	rc, ok := ctx.field("readConcern")
	if !ok || snapshotReads[ctx.Name] {
		return nil
	}
	if level, _ := bsonx.Get(asDoc(rc), "level"); level != "snapshot" {
		return nil
	}
	return mongoerr.New(mongoerr.InvalidOptions, "Command %s does not support readConcern level snapshot outside a multi-statement transaction", ctx.Name)
}

package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/session"
)

// Multi-document transactions: a statement carries lsid, txnNumber and
// autocommit: false (the first also startTransaction: true and maybe a
// readConcern); commitTransaction and abortTransaction end it. A
// replica-set member runs them (txn_run.go, internal/txn,
// catalog.Txn); a standalone refuses them with IllegalOperation (20), as
// mongod does. The router's own checks (one shard per transaction,
// router/txns.go) run before a statement reaches a shard.

// txnStmt is a transaction statement's identity, parsed by
// checkTransaction; the statement runs in runInTxn.
type txnStmt struct {
	key    session.Key
	lsid   bson.D
	number int64
	start  bool
	// majority: the first statement's readConcern is majority or snapshot.
	majority bool
	t        *txnHeld // the transaction while the statement runs
}

// errNoTransactions is the error a transaction's statement gets on a
// standalone.
func (d *Dispatcher) errNoTransactions() error {
	return mongoerr.New(mongoerr.IllegalOperation, "Transaction numbers are only allowed on a replica set member or mongos")
}

// txnCommands are the commands a transaction may run (MongoDB's list,
// without DDL: TODO(#14) create/createIndexes in a transaction).
var txnCommands = map[string]bool{
	"find": true, "getMore": true, "killCursors": true, "aggregate": true, "distinct": true,
	"insert": true, "update": true, "delete": true, "findAndModify": true, "findandmodify": true,
	"commitTransaction": true, "abortTransaction": true,
}

// checkTransaction parses a transaction statement's fields (a command
// carrying autocommit or startTransaction) into ctx.txn, refusing what
// MongoDB refuses before running it.
func (d *Dispatcher) checkTransaction(ctx *Ctx) error {
	auto, hasAuto := ctx.field("autocommit")
	startV, hasStart := ctx.field("startTransaction")
	if !hasAuto && !hasStart {
		if ctx.Name == "commitTransaction" || ctx.Name == "abortTransaction" {
			if d.repl == nil {
				return d.errNoTransactions()
			}
			return mongoerr.New(mongoerr.InvalidOptions, "%s must be run within a transaction", ctx.Name)
		}
		return nil
	}
	if d.repl == nil {
		return d.errNoTransactions()
	}
	if !hasAuto {
		return mongoerr.New(mongoerr.InvalidOptions, "txnNumber may only be provided for multi-document transactions and retryable write commands. autocommit:false was not provided.")
	}
	if auto != false {
		return mongoerr.New(mongoerr.InvalidOptions, "Specifying autocommit=true is not allowed.")
	}
	s, err := parseTxnStmt(ctx, hasStart && startV == true)
	if err != nil {
		return err
	}
	if err := checkTxnCommand(ctx, s.start); err != nil {
		return err
	}
	ctx.txn = s
	return nil
}

// parseTxnStmt reads lsid, txnNumber and the first statement's readConcern.
func parseTxnStmt(ctx *Ctx, start bool) (*txnStmt, error) {
	v, ok := ctx.field("txnNumber")
	if !ok {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "'autocommit' field requires a transaction number to also be specified")
	}
	n, isLong := v.(int64)
	if !isLong {
		return nil, ctx.typeErr("txnNumber", v, "long")
	}
	lsid, _, err := ctx.doc("lsid")
	if err != nil {
		return nil, err
	}
	key, ok := session.KeyOf(lsid)
	if !ok {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "Transaction number requires a session ID to also be specified")
	}
	s := &txnStmt{key: key, lsid: lsid, number: n, start: start}
	if rc, ok := ctx.field("readConcern"); ok {
		if !start {
			return nil, mongoerr.New(mongoerr.InvalidOptions, "Only the first command in a transaction may specify a readConcern")
		}
		level, _ := bsonx.Get(asDoc(rc), "level")
		switch level {
		case nil, "local", "majority", "snapshot":
		default:
			return nil, mongoerr.New(mongoerr.InvalidOptions, "The readConcern level must be either 'local' (default), 'majority' or 'snapshot' in order to run in a transaction")
		}
		s.majority = level == "majority" || level == "snapshot"
	}
	return s, nil
}

// checkTxnCommand refuses commands a transaction cannot run.
func checkTxnCommand(ctx *Ctx, start bool) error {
	name := ctx.Name
	if !txnCommands[name] {
		return mongoerr.New(mongoerr.OperationNotSupportedInTransaction, "Cannot run '%s' in a multi-document transaction.", name)
	}
	if start && (name == "commitTransaction" || name == "abortTransaction" || name == "getMore" || name == "killCursors") {
		return mongoerr.New(mongoerr.OperationNotSupportedInTransaction, "Cannot start a transaction with %s", name)
	}
	if _, ok := ctx.field("writeConcern"); ok && name != "commitTransaction" && name != "abortTransaction" {
		return mongoerr.New(mongoerr.InvalidOptions, "Cannot set write concern after starting a transaction.")
	}
	if name == "aggregate" {
		p, _ := ctx.field("pipeline")
		stages, _ := p.(bson.A)
		for _, st := range stages {
			if sd, ok := st.(bson.D); ok && len(sd) > 0 && (sd[0].Key == "$out" || sd[0].Key == "$merge") {
				return mongoerr.New(mongoerr.OperationNotSupportedInTransaction, "%s cannot be used in a transaction", sd[0].Key)
			}
		}
	}
	return nil
}

// snapshotReads are the commands that take readConcern level "snapshot"
// outside a transaction (MongoDB 5.0+, snapshot_read.go); the rest refuse
// it.
var snapshotReads = map[string]bool{"find": true, "aggregate": true, "distinct": true,
	"getMore": true} // a snapshot session's getMore reads its cursor's snapshot

// checkSnapshotReadConcern refuses readConcern {level: "snapshot"} on a
// command that supports it only in a transaction (writes, list commands,
// count, ...), with MongoDB's InvalidOptions.
func checkSnapshotReadConcern(ctx *Ctx) error {
	rc, ok := ctx.field("readConcern")
	if !ok || snapshotReads[ctx.Name] || ctx.txn != nil {
		return nil
	}
	if level, _ := bsonx.Get(asDoc(rc), "level"); level != "snapshot" {
		return nil
	}
	return mongoerr.New(mongoerr.InvalidOptions, "Command %s does not support readConcern level snapshot outside a multi-statement transaction", ctx.Name)
}

package spec

// The unified format's transaction operations (transactions/unified):
// startTransaction, commitTransaction, abortTransaction, withTransaction,
// assertSessionTransactionState, targetedFailPoint, and the session
// entity's defaultTransactionOptions.

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func init() {
	for name, fn := range map[string]opFunc{
		"startTransaction":              opStartTransaction,
		"commitTransaction":             opCommitTransaction,
		"abortTransaction":              opAbortTransaction,
		"withTransaction":               opWithTransaction,
		"assertSessionTransactionState": opAssertTxnState,
		"targetedFailPoint":             opTargetedFailPoint,
	} {
		operations[name] = fn
	}
}

// transactionOptions parses readConcern, writeConcern, readPreference and
// maxCommitTimeMS (in d itself).
func transactionOptions(d bson.D) (*options.TransactionOptionsBuilder, error) {
	o := options.Transaction()
	for _, e := range d {
		sub, _ := e.Value.(bson.D)
		switch e.Key {
		case "readConcern":
			o.SetReadConcern(parseReadConcern(sub))
		case "writeConcern":
			wc, err := parseWriteConcern(sub)
			if err != nil {
				return nil, err
			}
			o.SetWriteConcern(wc)
		case "readPreference":
			rp, err := parseReadPref(sub)
			if err != nil {
				return nil, err
			}
			o.SetReadPreference(rp)
		case "maxCommitTimeMS", "timeoutMS":
			// TODO(#14): maxCommitTimeMS is gone from the v2 driver (CSOT).
		default:
			return nil, runnerErrorf("runner: unsupported transaction option %q", e.Key)
		}
	}
	return o, nil
}

// sessionOptions parses a session entity's sessionOptions.
func sessionOptions(d bson.D) (*options.SessionOptionsBuilder, error) {
	o := options.Session()
	for _, e := range d {
		switch e.Key {
		case "causalConsistency":
			b, _ := e.Value.(bool)
			o.SetCausalConsistency(b)
		case "defaultTransactionOptions":
			sub, _ := e.Value.(bson.D)
			t, err := transactionOptions(sub)
			if err != nil {
				return nil, err
			}
			o.SetDefaultTransactionOptions(t)
		case "snapshot":
			b, _ := e.Value.(bool)
			o.SetSnapshot(b)
		case "snapshotTime": // a timestamp (createEntities resolves an entity id, ops_session.go)
			ts, ok := e.Value.(bson.Timestamp)
			if !ok {
				return nil, runnerErrorf("runner: snapshotTime is %T, want a timestamp", e.Value)
			}
			o.SetSnapshotTime(ts)
		default:
			return nil, runnerErrorf("runner: unsupported session option %q", e.Key)
		}
	}
	return o, nil
}

func sessionOf(r *testRun, op Operation) (*mongo.Session, error) {
	return getAs[*mongo.Session](r.ents, op.Object)
}

func opStartTransaction(_ context.Context, r *testRun, op Operation) (any, bool, error) {
	s, err := sessionOf(r, op)
	if err != nil {
		return nil, false, err
	}
	o, err := transactionOptions(op.Arguments)
	if err != nil {
		return nil, false, err
	}
	return nil, false, s.StartTransaction(o)
}

func opCommitTransaction(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	s, err := sessionOf(r, op)
	if err != nil {
		return nil, false, err
	}
	return nil, false, s.CommitTransaction(ctx)
}

func opAbortTransaction(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	s, err := sessionOf(r, op)
	if err != nil {
		return nil, false, err
	}
	return nil, false, s.AbortTransaction(ctx)
}

// opWithTransaction runs the callback's operations in the driver's
// withTransaction (which retries them on transient errors).
func opWithTransaction(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	s, err := sessionOf(r, op)
	if err != nil {
		return nil, false, err
	}
	raw, _ := lookup(op.Arguments, "callback")
	list, _ := raw.(bson.A)
	ops := make([]Operation, 0, len(list))
	for _, x := range list {
		d, _ := x.(bson.D)
		cop, err := ParseOperation(d)
		if err != nil {
			return nil, false, runnerErrorf("runner: withTransaction callback: %v", err)
		}
		ops = append(ops, cop)
	}
	o, err := transactionOptions(without(op.Arguments, "callback"))
	if err != nil {
		return nil, false, err
	}
	_, err = s.WithTransaction(ctx, func(sc context.Context) (any, error) {
		for _, cop := range ops {
			if err := r.runOp(sc, cop); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}, o)
	return nil, false, err
}

// opAssertTxnState compares the session's transaction state (read from
// the driver's session by reflection: the v2 driver does not export it).
func opAssertTxnState(ctx context.Context, _ *testRun, op Operation) (any, bool, error) {
	s := mongo.SessionFromContext(ctx) // runOp took the session argument
	if s == nil {
		return nil, false, runnerErrorf("runner: assertSessionTransactionState without a session")
	}
	cs := reflect.ValueOf(s).Elem().FieldByName("clientSession")
	if !cs.IsValid() || cs.IsNil() {
		return nil, false, runnerErrorf("runner: cannot read the session's transaction state")
	}
	names := []string{"none", "starting", "in_progress", "committed", "aborted"}
	st := int(cs.Elem().FieldByName("TransactionState").Uint())
	want := getString(op.Arguments, "state")
	if st >= len(names) || names[st] != want {
		return nil, false, fmt.Errorf("session transaction state %d, want %s", st, want)
	}
	return nil, false, nil
}

// opTargetedFailPoint configures a fail point through the session's
// client (the primary; TODO(#14): the pinned router on sharded clusters).
func opTargetedFailPoint(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	s := mongo.SessionFromContext(ctx)
	if s == nil {
		return nil, false, runnerErrorf("runner: targetedFailPoint without a session")
	}
	fp := getDoc(op.Arguments, "failPoint")
	if err := s.Client().Database("admin").RunCommand(context.Background(), fp).Err(); err != nil {
		return nil, false, fmt.Errorf("configureFailPoint: %w", err)
	}
	name, _ := lookup(fp, "configureFailPoint")
	r.cleanups = append(r.cleanups, func() {
		off := bson.D{{Key: "configureFailPoint", Value: name}, {Key: "mode", Value: "off"}}
		_ = r.internal.Database("admin").RunCommand(context.Background(), off).Err()
	})
	return nil, false, nil
}

// foldersFor is the folders a variant runs: Folders, and on a replica
// set also the transactions and retryable-writes/-reads tests
// (TODO(#14): transactions on the sharded variants too, once the runner
// pins sessions to a router and transactions may touch sharded
// collections; the retryable tests there and on a standalone, where
// retryable-reads alone takes 75-100 s).
func foldersFor(variant string) []string {
	if variant == "replicaset" {
		return append(slices.Clone(Folders), "transactions/unified", "retryable-writes/unified", "retryable-reads/unified")
	}
	return Folders
}

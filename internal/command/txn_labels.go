package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// transientCodes are the errors after which a whole transaction may be
// retried (MongoDB's isTransientTransactionError; NoSuchTransaction is
// judged apart).
var transientCodes = map[mongoerr.Code]bool{
	mongoerr.WriteConflict: true, mongoerr.LockTimeout: true, mongoerr.PreparedTransactionInProgress: true,
	mongoerr.SnapshotUnavailable: true, mongoerr.StaleDbVersion: true,
}

// WithTxnLabels gives a transaction statement's error (a command carrying
// autocommit) the labels mongod computes: TransientTransactionError for
// the transient codes, NoSuchTransaction and a statement's not-primary or
// shutdown errors, UnknownTransactionCommitResult
// for a commitTransaction whose outcome is unknown (a retryable error, a
// time limit or a write concern failure). An error that already carries
// labels (possibly an empty list from a fail point) keeps them. A router
// applies it to the errors it answers itself (its fail point).
func WithTxnLabels(name string, cmd bson.D, err error) error {
	if _, inTxn := bsonx.Get(cmd, "autocommit"); !inTxn || err == nil {
		return err
	}
	me := mongoerr.From(err)
	if me.Labels != nil {
		return err
	}
	var labels []string
	code := me.Code
	commitOrAbort := name == "commitTransaction" || name == "abortTransaction"
	switch {
	case transientCodes[code], code == mongoerr.NoSuchTransaction:
		labels = append(labels, mongoerr.LabelTransientTransaction)
	case !commitOrAbort && retryableCodes[code]: // the statement's primary is gone
		labels = append(labels, mongoerr.LabelTransientTransaction)
	case name == "commitTransaction" && (retryableCodes[code] || code == mongoerr.MaxTimeMSExpired || code == mongoerr.WriteConcernFailed):
		labels = append(labels, mongoerr.LabelUnknownTransactionCommit)
	}
	if commitOrAbort && retryableCodes[code] {
		labels = append(labels, mongoerr.LabelRetryableWrite)
	}
	if labels == nil {
		return err
	}
	cp := *me
	cp.Labels = labels
	return &cp
}

// txnErrorReply is ErrorReply for a command's error, with a transaction
// statement's labels (WithTxnLabels) and, as mongod answers them, its
// operationTime and $clusterTime: a driver starting the next attempt of
// a transaction reads after the time it learnt (afterClusterTime).
func (d *Dispatcher) txnErrorReply(name string, cmd bson.D, err error) []byte {
	if _, inTxn := bsonx.Get(cmd, "autocommit"); !inTxn || d.repl == nil {
		return d.ErrorReply(err)
	}
	err = WithTxnLabels(name, cmd, err)
	doc := append(ErrorDoc(err), d.stateChangeFields(mongoerr.From(err).Code, mongoerr.OK)...)
	b, merr := bson.Marshal(d.opTimeFields(doc))
	if merr != nil {
		return d.ErrorReply(err)
	}
	return b
}

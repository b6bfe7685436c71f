package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// retryableCodes are the error codes after which a retryable write may be
// sent again (the drivers' retryable writes specification).
var retryableCodes = map[mongoerr.Code]bool{
	mongoerr.HostUnreachable: true, mongoerr.HostNotFound: true, mongoerr.NetworkTimeout: true,
	mongoerr.ShutdownInProgress: true, mongoerr.PrimarySteppedDown: true, mongoerr.ExceededTimeLimit: true,
	mongoerr.SocketException: true, mongoerr.NotWritablePrimary: true, mongoerr.InterruptedAtShutdown: true,
	mongoerr.InterruptedDueToReplStateChange: true, mongoerr.NotPrimaryNoSecondaryOk: true,
	mongoerr.NotPrimaryOrSecondary: true,
}

// LabelRetryableWCE adds errorLabels ["RetryableWriteError"] to the reply
// of a retryable write (txnNumber outside a transaction, or a transaction's
// commit/abort) whose writeConcernError has a retryable code, as mongod
// does: drivers on wire version 9+ retry on the label alone, so a primary
// stepping down while waiting for w:"majority" is retried, not reported.
// The router applies it too, to the replies it builds (mongos does).
func LabelRetryableWCE(name string, cmd, reply bson.D) bson.D {
	if _, has := bsonx.Get(reply, "errorLabels"); has {
		return reply
	}
	wce, _ := bsonx.Get(reply, "writeConcernError")
	wd, isDoc := wce.(bson.D)
	if !isDoc {
		return reply
	}
	code, _ := bsonx.Get(wd, "code")
	n, _ := bsonx.AsInt64(code)
	if !retryableCodes[mongoerr.Code(n)] {
		return reply
	}
	_, hasTxn := bsonx.Get(cmd, "txnNumber")
	_, inTxn := bsonx.Get(cmd, "autocommit")
	if !hasTxn || (inTxn && name != "commitTransaction" && name != "abortTransaction") {
		return reply
	}
	return append(reply, bson.E{Key: "errorLabels", Value: bson.A{mongoerr.LabelRetryableWrite}})
}

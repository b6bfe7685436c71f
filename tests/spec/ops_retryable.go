package spec

// Operations of the retryable-reads tests the other files lack:
// listIndexNames, listCollectionObjects and listDatabaseObjects (the
// driver's listIndexes, listCollections and listDatabases under the names
// other drivers' helpers have) and mapReduce, which the v2 driver no
// longer has: sent as the command drivers send, {mapReduce, map, reduce,
// out}, its result the inline results. The raw count the runner sends for
// the count helper is retried once, as drivers retry reads (TODO(#14): a
// GridFS bucket entity for download and downloadByName).

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func init() {
	for name, fn := range map[string]opFunc{
		"listIndexNames":        opListIndexNames,
		"listCollectionObjects": opListCollections,
		"listDatabaseObjects":   opListDatabases,
		"mapReduce":             opMapReduce,
	} {
		operations[name] = fn
	}
}

func opListIndexNames(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, false, err
	}
	if len(op.Arguments) > 0 {
		return nil, false, unsupportedArg(op.Name, op.Arguments[0].Key)
	}
	specs, err := coll.Indexes().ListSpecifications(ctx)
	if err != nil {
		return nil, false, err
	}
	names := bson.A{}
	for _, s := range specs {
		names = append(names, s.Name)
	}
	return names, false, nil
}

// opMapReduce runs {mapReduce: coll, map, reduce, out, ...} and answers
// the inline results.
func opMapReduce(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, false, err
	}
	cmd := bson.D{{Key: "mapReduce", Value: coll.Name()}}
	cmd, err = commandArgs(op.Name, cmd, op.Arguments, nil, "map", "reduce", "out", "query", "sort",
		"limit", "finalize", "scope", "jsMode", "verbose", "bypassDocumentValidation", "collation", "comment")
	if err != nil {
		return nil, false, err
	}
	var reply bson.D
	if err := coll.Database().RunCommand(ctx, cmd).Decode(&reply); err != nil {
		return nil, false, err
	}
	res, ok := lookup(reply, "results")
	if !ok {
		return nil, false, fmt.Errorf("mapReduce: reply without results: %v", reply)
	}
	return normalize(res), true, nil
}

// retryableReadCodes are the retryable reads spec's retryable errors.
var retryableReadCodes = []mongoerr.Code{mongoerr.InterruptedAtShutdown, mongoerr.InterruptedDueToReplStateChange,
	mongoerr.NotWritablePrimary, mongoerr.NotPrimaryNoSecondaryOk, mongoerr.NotPrimaryOrSecondary,
	mongoerr.PrimarySteppedDown, mongoerr.ShutdownInProgress, mongoerr.HostNotFound, mongoerr.HostUnreachable,
	mongoerr.NetworkTimeout, mongoerr.SocketException, mongoerr.ExceededTimeLimit}

// retryCount sends a count command and, after a retryable error on a
// client with retryReads (the default), once more.
func retryCount(ctx context.Context, db *mongo.Database, cmd bson.D) (any, bool, error) {
	n, root, err := countReply(ctx, db, cmd)
	if err == nil || !retryableRead(err) || !retryReads(db.Client()) {
		return n, root, err
	}
	return countReply(ctx, db, cmd)
}

func retryableRead(err error) bool {
	if mongo.IsNetworkError(err) {
		return true
	}
	var se mongo.ServerError
	if !errors.As(err, &se) {
		return false
	}
	for _, c := range retryableReadCodes {
		if se.HasErrorCode(int(c)) {
			return true
		}
	}
	return false
}

// retryReads reads the client's retryReads (unexported in the v2 driver).
func retryReads(c *mongo.Client) bool {
	f := reflect.ValueOf(c).Elem().FieldByName("retryReads")
	return !f.IsValid() || f.Bool()
}

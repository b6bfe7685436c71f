package spec

import (
	"context"
	"fmt"
	"maps"
	"reflect"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// opFunc runs one operation. It returns the result, whether the result is
// a root-level document (or an iterable of them) for matching, and the
// operation's error.
type opFunc func(ctx context.Context, r *testRun, op Operation) (any, bool, error)

// operations is the registry of supported operation names; other files'
// init functions add theirs (they may run before this file's).
var operations = map[string]opFunc{}

func init() {
	maps.Copy(operations, map[string]opFunc{
		"aggregate":                            opAggregate,
		"assertCollectionExists":               opAssertCollection,
		"assertCollectionNotExists":            opAssertCollection,
		"assertIndexExists":                    opAssertIndex,
		"assertIndexNotExists":                 opAssertIndex,
		"assertSameLsidOnLastTwoCommands":      opAssertLsid,
		"assertDifferentLsidOnLastTwoCommands": opAssertLsid,
		"bulkWrite":                            opBulkWrite,
		"clientBulkWrite":                      opClientBulkWrite,
		"close":                                opClose,
		"count":                                opCount,
		"countDocuments":                       opCountDocuments,
		"createCollection":                     opCreateCollection,
		"createCommandCursor":                  opCreateCommandCursor,
		"createFindCursor":                     opCreateFindCursor,
		"createIndex":                          opCreateIndex,
		"deleteMany":                           opDeleteMany,
		"deleteOne":                            opDeleteOne,
		"distinct":                             opDistinct,
		"dropCollection":                       opDropCollection,
		"dropIndex":                            opDropIndex,
		"dropIndexes":                          opDropIndexes,
		"estimatedDocumentCount":               opEstimatedCount,
		"failPoint":                            opFailPoint,
		"find":                                 opFind,
		"findOne":                              opFindOne,
		"findOneAndDelete":                     opFindOneAndDelete,
		"findOneAndReplace":                    opFindOneAndReplace,
		"findOneAndUpdate":                     opFindOneAndUpdate,
		"insertMany":                           opInsertMany,
		"insertOne":                            opInsertOne,
		"iterateOnce":                          opIterateOnce,
		"iterateUntilDocumentOrError":          opIterateUntilDocumentOrError,
		"listCollectionNames":                  opListCollectionNames,
		"listCollections":                      opListCollections,
		"listDatabaseNames":                    opListDatabases,
		"listDatabases":                        opListDatabases,
		"listIndexes":                          opListIndexes,
		"modifyCollection":                     opModifyCollection,
		"rename":                               opRename,
		"replaceOne":                           opReplaceOne,
		"runCommand":                           opRunCommand,
		"runCursorCommand":                     opRunCursorCommand,
		"updateMany":                           opUpdateMany,
		"updateOne":                            opUpdateOne,
	})
	// TODO(#2): search index helpers,
	// assertNumberConnectionsCheckedOut (needs a pool monitor).
}

// Supported reports whether the runner implements an operation name.
func Supported(name string) bool {
	_, ok := operations[name]
	return ok
}

// opFailPoint runs configureFailPoint through the named client and
// registers the matching "off" for the end of the test.
func opFailPoint(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	ce, err := getAs[*clientEntity](r.ents, getString(op.Arguments, "client"))
	if err != nil {
		return nil, false, err
	}
	fp := getDoc(op.Arguments, "failPoint")
	admin := ce.c.Database("admin")
	if err := admin.RunCommand(ctx, fp).Err(); err != nil {
		return nil, false, fmt.Errorf("configureFailPoint: %w", err)
	}
	name, _ := lookup(fp, "configureFailPoint")
	r.cleanups = append(r.cleanups, func() {
		off := bson.D{{Key: "configureFailPoint", Value: name}, {Key: "mode", Value: "off"}}
		_ = r.internal.Database("admin").RunCommand(context.Background(), off).Err()
	})
	return nil, false, nil
}

func opAssertLsid(_ context.Context, r *testRun, op Operation) (any, bool, error) {
	ce, err := getAs[*clientEntity](r.ents, getString(op.Arguments, "client"))
	if err != nil {
		return nil, false, err
	}
	var lsids []any
	for _, ev := range ce.observed() {
		if ev.kind == "commandStartedEvent" {
			v, _ := lookup(ev.payload, "lsid")
			lsids = append(lsids, v)
		}
	}
	if len(lsids) < 2 {
		return nil, false, fmt.Errorf("%s: fewer than two commandStartedEvents", op.Name)
	}
	same := reflect.DeepEqual(lsids[len(lsids)-1], lsids[len(lsids)-2])
	if want := op.Name == "assertSameLsidOnLastTwoCommands"; same != want {
		return nil, false, fmt.Errorf("%s: lsids %s and %s", op.Name, show(lsids[len(lsids)-2]), show(lsids[len(lsids)-1]))
	}
	return nil, false, nil
}

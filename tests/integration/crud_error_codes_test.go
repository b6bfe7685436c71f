package integration

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func testCRUDErrorCodes(t *testing.T, coll *mongo.Collection) {
	ctx := tctx(t, opTimeout)
	seedDocs(t, coll, 2)
	db := coll.Database()
	_, err := coll.Find(ctx, bson.D{{Key: "a", Value: bson.D{{Key: "$in", Value: int32(5)}}}})
	wantCode(t, err, 2, "$in with non-array (BadValue)")
	_, err = coll.Find(ctx, bson.D{{Key: "a", Value: bson.D{{Key: "$foo", Value: 1}}}})
	wantCode(t, err, 2, "unknown query operator (BadValue)")
	_, err = coll.UpdateOne(ctx, bson.D{}, bson.D{{Key: "$foo", Value: bson.D{{Key: "a", Value: 1}}}})
	wantCode(t, err, 9, "unknown update modifier (FailedToParse)")
	_, err = coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: int32(1)}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "b", Value: 1}}}})
	wantCode(t, err, 14, "$inc on a string (TypeMismatch)")
	err = db.RunCommand(ctx, bson.D{{Key: "find", Value: coll.Name()}, {Key: "filter", Value: "str"}}).Err()
	wantCode(t, err, 14, "find filter of type string (TypeMismatch)")
	err = db.RunCommand(ctx, bson.D{{Key: "noSuchCommandX", Value: 1}}).Err()
	wantCode(t, err, 59, "unknown command (CommandNotFound)")
	err = db.RunCommand(ctx, bson.D{{Key: "listIndexes", Value: "no_such_coll"}}).Err()
	wantCode(t, err, 26, "listIndexes on missing collection (NamespaceNotFound)")
	err = db.RunCommand(ctx, bson.D{{Key: "dropIndexes", Value: "no_such_coll"}, {Key: "index", Value: "a_1"}}).Err()
	wantCode(t, err, 26, "dropIndexes on missing collection (NamespaceNotFound)")
}

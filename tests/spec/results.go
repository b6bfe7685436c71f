package spec

import (
	"errors"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// This file renders driver results as the unified format's result objects.

func updateResult(res *mongo.UpdateResult) any {
	if res == nil {
		return nil
	}
	d := bson.D{
		{Key: "matchedCount", Value: res.MatchedCount},
		{Key: "modifiedCount", Value: res.ModifiedCount},
		{Key: "upsertedCount", Value: res.UpsertedCount},
	}
	if res.UpsertedID != nil {
		d = append(d, bson.E{Key: "upsertedId", Value: res.UpsertedID})
	}
	return d
}

func deleteResult(res *mongo.DeleteResult) any {
	if res == nil {
		return nil
	}
	return bson.D{{Key: "deletedCount", Value: res.DeletedCount}}
}

// insertManyPartial is the BulkWriteResult a failed insertMany carries
// (the v2 driver's BulkWriteException has none): with write errors, an
// ordered insert stopped at the first failing document, an unordered one
// inserted all but the failing ones. nil (unset) for other errors.
func insertManyPartial(n int, ordered bool, err error) any {
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) {
		return nil
	}
	inserted := n - len(bwe.WriteErrors)
	if ordered && len(bwe.WriteErrors) > 0 {
		inserted = bwe.WriteErrors[0].Index
	}
	return bulkResult(&mongo.BulkWriteResult{InsertedCount: int64(inserted)})
}

func setIf(b *bool, f func(bool)) {
	if b != nil {
		f(*b)
	}
}

func setAny(v any, f func(any)) {
	if v != nil {
		f(v)
	}
}

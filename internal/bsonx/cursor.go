package bsonx

import "go.mongodb.org/mongo-driver/v2/bson"

// CursorBatch returns the documents of a cursor reply's
// cursor.firstBatch (or nextBatch); elements that are not documents are
// left out, a reply without a cursor gives none.
func CursorBatch(reply bson.D) []bson.D {
	cur, _ := Get(reply, "cursor")
	cd, _ := cur.(bson.D)
	b, ok := Get(cd, "firstBatch")
	if !ok {
		b, _ = Get(cd, "nextBatch")
	}
	arr, _ := b.(bson.A)
	out := make([]bson.D, 0, len(arr))
	for _, v := range arr {
		if d, ok := v.(bson.D); ok {
			out = append(out, d)
		}
	}
	return out
}

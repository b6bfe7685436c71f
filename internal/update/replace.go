package update

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func compileReplacement(d bson.D) (*Update, error) {
	for _, e := range d {
		if isOperator(e.Key) {
			return nil, mongoerr.New(mongoerr.DollarPrefixedFieldName,
				"The dollar ($) prefixed field '%s' in '%s' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.",
				e.Key, e.Key)
		}
	}
	return &Update{replacement: bsonx.CloneDoc(d), isReplace: true}, nil
}

// applyReplacement replaces doc, keeping its _id (first).
func (u *Update) applyReplacement(doc bson.D) (Result, error) {
	id, hasID := bsonx.Get(doc, "_id")
	next, err := replaceKeepingID(u.replacement, id, hasID)
	if err != nil {
		return Result{}, err
	}
	if identical(next, doc) {
		return Result{Doc: next}, nil
	}
	return Result{Doc: next, Changed: true, Oplog: bsonx.CloneDoc(next)}, nil
}

// replaceKeepingID returns a copy of repl whose _id is id (when hasID),
// with _id as the first field. A different _id in repl is an error.
func replaceKeepingID(repl bson.D, id any, hasID bool) (bson.D, error) {
	newID, replHasID := bsonx.Get(repl, "_id")
	if hasID && replHasID && !bsonx.Equal(id, newID) {
		return nil, mongoerr.New(mongoerr.ImmutableField,
			"After applying the update, the (immutable) field '_id' was found to have been altered to %s",
			fmtElem("_id", newID))
	}
	if !replHasID && hasID {
		newID, replHasID = id, true
	}
	out := make(bson.D, 0, len(repl)+1)
	if replHasID {
		out = append(out, bson.E{Key: "_id", Value: bsonx.Clone(newID)})
	}
	for _, e := range repl {
		if e.Key != "_id" {
			out = append(out, bson.E{Key: e.Key, Value: bsonx.Clone(e.Value)})
		}
	}
	return out, nil
}

package key

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// Format renders a document as MongoDB's BSONObj::toString does in error
// messages: { a: 1, b: "x", c: MinKey }.
func Format(d bson.D) string { return bsonx.ToString(d) }

// FormatValue renders one value the way Format renders a field's value.
func FormatValue(v any) string { return bsonx.ToString(v) }

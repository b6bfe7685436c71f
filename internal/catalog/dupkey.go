package catalog

import (
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// DuplicateKeyError is a DuplicateKey (11000) error with the details a
// writeError carries (errInfo/keyPattern/keyValue). errors.As finds both it
// and the wrapped *mongoerr.Error.
type DuplicateKeyError struct {
	Err        *mongoerr.Error
	IndexName  string
	KeyPattern bson.D
	KeyValue   bson.D
}

func (e *DuplicateKeyError) Error() string { return e.Err.Error() }

// Unwrap returns the client-visible error.
func (e *DuplicateKeyError) Unwrap() error { return e.Err }

// newDupKey builds MongoDB's message:
// "E11000 duplicate key error collection: db.coll index: name dup key: { a: 1 }".
func newDupKey(coll *Collection, idx *Index, value bson.D) *DuplicateKeyError {
	msg := fmt.Sprintf("E11000 duplicate key error collection: %s index: %s dup key: %s",
		coll.NS(), idx.Name, formatKeyDoc(value))
	return &DuplicateKeyError{Err: mongoerr.New(mongoerr.DuplicateKey, "%s", msg),
		IndexName: idx.Name, KeyPattern: idx.Key, KeyValue: value}
}

// formatKeyDoc renders a key like MongoDB's log format: { a: 1, b: "x" }.
func formatKeyDoc(d bson.D) string {
	if len(d) == 0 {
		return "{}"
	}
	parts := make([]string, len(d))
	for i, e := range d {
		parts[i] = e.Key + ": " + formatKeyValue(e.Value)
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

func formatKeyValue(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("%q", t)
	case bson.ObjectID:
		return "ObjectId('" + t.Hex() + "')"
	case bson.D:
		return formatKeyDoc(t)
	case bson.A:
		parts := make([]string, len(t))
		for i, e := range t {
			parts[i] = formatKeyValue(e)
		}
		return "[ " + strings.Join(parts, ", ") + " ]"
	case bson.DateTime:
		return "new Date(" + fmt.Sprint(int64(t)) + ")"
	case bson.Undefined:
		return "undefined"
	case bson.MinKey:
		return "MinKey"
	case bson.MaxKey:
		return "MaxKey"
	case float64:
		return fmt.Sprint(t)
	}
	return fmt.Sprint(v)
}

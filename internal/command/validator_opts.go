package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

// validationOptions are the document-validation options create and collMod
// accept (stored with the collection, applied by exec.Engine on writes).
var validationOptions = map[string]bool{"validator": true, "validationLevel": true, "validationAction": true}

// checkValidationOption checks one of validationOptions as MongoDB does: a
// validator is a filter that compiles; a level is off/strict/moderate; an
// action is error/warn.
func checkValidationOption(e bson.E) error {
	switch e.Key {
	case "validator":
		d, ok := e.Value.(bson.D)
		if !ok {
			return mongoerr.New(mongoerr.TypeMismatch, "'validator' has to be a document")
		}
		_, err := query.Compile(d)
		return err
	case "validationLevel":
		return checkEnumOption(e, "off", "strict", "moderate")
	case "validationAction":
		return checkEnumOption(e, "error", "warn")
	}
	return nil
}

func checkEnumOption(e bson.E, allowed ...string) error {
	s, ok := e.Value.(string)
	if !ok {
		return mongoerr.New(mongoerr.TypeMismatch, "BSON field '%s' is the wrong type '%s', expected type 'string'", e.Key, bsonx.TypeAlias(e.Value))
	}
	for _, a := range allowed {
		if s == a {
			return nil
		}
	}
	return mongoerr.New(mongoerr.BadValue, "Enumeration value '%s' for field '%s' is not a valid value.", s, e.Key)
}

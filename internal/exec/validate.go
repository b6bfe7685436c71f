package exec

import (
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

// Document validation (MongoDB's validator, validationLevel and
// validationAction collection options) runs here, where a client's write
// computes its new document, and never in the catalog: the oplog applier
// writes documents the primary already validated.
//
// Invariants: a write with bypassDocumentValidation, or to a collection
// whose validationLevel is "off", is never validated; under "moderate" an
// update of a document that already failed the validator is not
// validated; a failure under validationAction "warn" is logged and the
// write proceeds.

// TODO(#14): under --auth, bypassDocumentValidation should need the
// bypassDocumentValidation action.

// validationError is DocumentValidationFailure (121) with MongoDB's errInfo.
type validationError struct {
	err  *mongoerr.Error
	info bson.D
}

func (e *validationError) Error() string     { return e.err.Error() }
func (e *validationError) Unwrap() error     { return e.err }
func (e *validationError) ExtraInfo() bson.D { return e.info }

// validators caches compiled validators by collection: a published
// *catalog.Collection's options never change (collMod publishes a new
// one), so the pointer identifies the validator. Bounded: cleared when
// full.
type validators struct {
	mu sync.Mutex
	m  map[*catalog.Collection]*query.Matcher
}

const maxCachedValidators = 1024

func (v *validators) get(col *catalog.Collection, spec bson.D) (*query.Matcher, error) {
	v.mu.Lock()
	m, ok := v.m[col]
	v.mu.Unlock()
	if ok {
		return m, nil
	}
	m, err := query.Compile(spec)
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.m == nil || len(v.m) >= maxCachedValidators {
		v.m = map[*catalog.Collection]*query.Matcher{}
	}
	v.m[col] = m
	return m, nil
}

// validationSettings reads a collection's validation options.
func validationSettings(col *catalog.Collection) (validator bson.D, level, action string) {
	level, action = "strict", "error"
	for _, o := range col.Options {
		switch o.Key {
		case "validator":
			validator, _ = o.Value.(bson.D)
		case "validationLevel":
			if s, ok := o.Value.(string); ok {
				level = s
			}
		case "validationAction":
			if s, ok := o.Value.(string); ok {
				action = s
			}
		}
	}
	return validator, level, action
}

// validate checks doc (the new version of old; old is nil for an insert)
// against col's validator.
func (e *Engine) validate(col *catalog.Collection, old, doc bson.D, bypass bool) error {
	spec, level, action := validationSettings(col)
	if bypass || len(spec) == 0 || level == "off" {
		return nil
	}
	m, err := e.validators.get(col, spec)
	if err != nil {
		return err
	}
	if m.Match(doc) || (level == "moderate" && old != nil && !m.Match(old)) {
		return nil
	}
	id, _ := bsonx.Get(doc, "_id")
	info := bson.D{{Key: "failingDocumentId", Value: id}, {Key: "details", Value: query.ValidationDetails(spec, doc)}}
	if action == "warn" {
		e.log.Warn("Document would fail validation", "namespace", col.NS(), "document", id, "errInfo", info)
		return nil
	}
	return &validationError{err: mongoerr.New(mongoerr.DocumentValidationFailure, "Document failed validation"),
		info: bson.D{{Key: "errInfo", Value: info}}}
}

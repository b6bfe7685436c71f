package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Converters for nested fields, named by their full IDL path in errors.

func asDoc(path string, v any) (bson.D, error) {
	d, ok := v.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field '%s' is the wrong type '%s', expected type 'object'", path, bsonx.TypeAlias(v))
	}
	return d, nil
}

func asBool(path string, v any) (bool, error) {
	switch b := v.(type) {
	case bool:
		return b, nil
	case int32, int64, float64:
		f, _ := bsonx.AsFloat64(b)
		return f != 0, nil
	}
	return false, mongoerr.New(mongoerr.TypeMismatch, "BSON field '%s' is the wrong type '%s', expected type 'bool'", path, bsonx.TypeAlias(v))
}

func asDocs(path string, v any) ([]bson.D, error) {
	a, ok := v.(bson.A)
	if !ok {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field '%s' is the wrong type '%s', expected type 'array'", path, bsonx.TypeAlias(v))
	}
	out := make([]bson.D, len(a))
	for i, x := range a {
		d, err := asDoc(path, x)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

// parseHint accepts an index name or a key pattern.
func parseHint(v any) (any, error) {
	switch h := v.(type) {
	case string:
		return h, nil
	case bson.D:
		if len(h) == 0 {
			return nil, nil
		}
		return h, nil
	}
	return nil, mongoerr.New(mongoerr.FailedToParse, "hint must be a string or an object")
}

// checkCollation accepts only the simple (binary) collation.
// TODO(#2): locale-aware collations.
func checkCollation(v any) error {
	d, ok := v.(bson.D)
	if !ok {
		return mongoerr.New(mongoerr.TypeMismatch, "collation must be an object")
	}
	if loc, _ := bsonx.Get(d, "locale"); loc == "simple" || len(d) == 0 {
		return nil
	}
	return mongoerr.New(mongoerr.NotImplemented, "relaydb supports only the simple collation; got %v", d)
}

// simpleCollation checks the command's collation field, if any.
func (c *Ctx) simpleCollation() error {
	if v, ok := c.field("collation"); ok {
		return checkCollation(v)
	}
	return nil
}

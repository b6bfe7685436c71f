package catalog

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

// matcher is a compiled partialFilterExpression.
type matcher interface{ Match(doc bson.D) bool }

// knownSpecFields are the index spec fields relaydb accepts; any other is
// InvalidIndexSpecificationOption (197).
var knownSpecFields = map[string]bool{
	"key": true, "name": true, "v": true, "unique": true, "sparse": true,
	"partialFilterExpression": true, "expireAfterSeconds": true, "background": true,
	"hidden": true, "collation": true, "ns": true, "storageEngine": true,
	"weights": true, "default_language": true, "language_override": true, "textIndexVersion": true,
	"wildcardProjection": true, "prepareUnique": true,
	"dropDups": true, // ignored since MongoDB 3.0 (setSpecField)
}

// parseSpec validates a createIndexes spec and returns the index it
// describes (ID unset). Spec is normalized to listIndexes' form.
func parseSpec(spec bson.D) (*Index, error) {
	idx := &Index{}
	var rest bson.D
	for _, f := range spec {
		if !knownSpecFields[f.Key] {
			return nil, mongoerr.New(mongoerr.InvalidIndexSpecificationOption,
				"The field '%s' is not valid for an index specification. Specification: %v", f.Key, spec)
		}
		if err := idx.setSpecField(f, &rest); err != nil {
			return nil, err
		}
	}
	if idx.Key == nil {
		return nil, mongoerr.New(mongoerr.FailedToParse, "The 'key' field is a required property of an index specification")
	}
	if idx.Name == "" {
		return nil, mongoerr.New(mongoerr.FailedToParse, "The 'name' field is a required property of an index specification")
	}
	if idx.IsText() {
		if err := idx.normalizeText(&rest); err != nil {
			return nil, err
		}
	}
	if err := idx.validate(); err != nil {
		return nil, err
	}
	if err := idx.validateGeo(rest); err != nil {
		return nil, err
	}
	if v, ok := bsonx.Get(rest, "wildcardProjection"); ok {
		p, err := parseWildcardProj(idx, v)
		if err != nil {
			return nil, err
		}
		idx.wcProj = p
	}
	if err := idx.validateCompoundWildcard(); err != nil { // indexwildcard_compound.go
		return nil, err
	}
	rest = geoSpecDefaults(idx, rest)
	idx.Spec = append(bson.D{{Key: "v", Value: int32(2)}, {Key: "key", Value: idx.Key}, {Key: "name", Value: idx.Name}}, rest...)
	return idx, idx.validateCollation()
}

// setSpecField applies one spec field; options other than key/name/v go to rest.
func (idx *Index) setSpecField(f bson.E, rest *bson.D) error {
	var ok bool
	switch f.Key {
	case "key":
		idx.Key, ok = f.Value.(bson.D)
	case "name":
		idx.Name, ok = f.Value.(string)
	case "v":
		n, isNum := bsonx.AsFloat64(f.Value)
		if !isNum || (n != 1 && n != 2) {
			return mongoerr.New(mongoerr.CannotCreateIndex, "Invalid index specification %v; cannot create an index with v=%v", f.Value, f.Value)
		}
		return nil
	case "unique":
		idx.Unique, ok = truthy(f.Value), true
	case "sparse":
		idx.Sparse, ok = truthy(f.Value), true
	case "partialFilterExpression":
		idx.Partial, ok = f.Value.(bson.D)
	case "expireAfterSeconds":
		ok = idx.setTTL(f.Value)
	case "hidden":
		idx.Hidden, ok = f.Value.(bool)
	case "collation":
		return idx.setCollation(f.Value, rest)
	case "dropDups":
		return nil // accepted and dropped from the spec, as MongoDB ignores it
	default:
		ok = true
	}
	if !ok {
		return mongoerr.New(mongoerr.TypeMismatch, "The field '%s' in an index specification has the wrong type: %T", f.Key, f.Value)
	}
	if f.Key != "key" && f.Key != "name" {
		*rest = append(*rest, f)
	}
	return nil
}

func (idx *Index) setTTL(v any) bool {
	n, ok := bsonx.AsFloat64(v)
	if !ok {
		return false
	}
	secs := int64(n)
	idx.ExpireAfterSeconds = &secs
	return true
}

func truthy(v any) bool {
	switch t := v.(type) {
	case bool:
		return t
	case nil:
		return false
	}
	n, ok := bsonx.AsFloat64(v)
	return !ok || n != 0
}

// validate checks the key pattern and options of a parsed spec.
func (idx *Index) validate() error {
	if len(idx.Key) == 0 {
		return mongoerr.New(mongoerr.CannotCreateIndex, "Index keys cannot be empty.")
	}
	for _, f := range idx.Key {
		if err := validateKeyValue(f); err != nil {
			return err
		}
	}
	if err := idx.validateHashed(); err != nil {
		return err
	}
	if err := idx.validateWildcard(); err != nil {
		return err
	}
	if idx.ExpireAfterSeconds != nil {
		if len(idx.Key) != 1 {
			return mongoerr.New(mongoerr.CannotCreateIndex, "TTL indexes are single-field indexes, compound indexes do not support TTL. Index spec: %v", idx.Key)
		}
		if *idx.ExpireAfterSeconds < 0 {
			return mongoerr.New(mongoerr.CannotCreateIndex, "TTL index 'expireAfterSeconds' option must be within an acceptable range, try a lower number")
		}
	}
	// TODO(#2): restrict partialFilterExpression operators as MongoDB does
	// ($eq, $exists:true, $gt/$gte/$lt/$lte, $type, $and, $or, $in).
	if idx.Partial != nil {
		m, err := query.Compile(idx.Partial)
		if err != nil {
			return err
		}
		idx.partial = m
	}
	if idx.Hidden && idx.IsID() {
		return mongoerr.New(mongoerr.BadValue, "can't hide _id index")
	}
	if idx.Name == "_id_" && (len(idx.Key) != 1 || idx.Key[0].Key != "_id") {
		return mongoerr.New(mongoerr.BadValue, "The index name '_id_' is reserved for the _id index")
	}
	return nil
}

// validateKeyValue checks one key pattern field (numbers, or "hashed";
// the other special index types are not supported).
func validateKeyValue(f bson.E) error {
	if f.Key == "" {
		return mongoerr.New(mongoerr.CannotCreateIndex, "Index keys cannot be an empty field.")
	}
	if s, ok := f.Value.(string); ok {
		switch s {
		case hashedKeyValue, sphereKeyValue, flatKeyValue, textKeyValue:
			return nil
		case "geoHaystack", "wildcard":
			return mongoerr.New(mongoerr.CannotCreateIndex, "Index type '%s' is not supported by relaydb", s)
		}
		return mongoerr.New(mongoerr.CannotCreateIndex, "Unknown index plugin '%s'", s)
	}
	n, ok := bsonx.AsFloat64(f.Value)
	if !ok || n == 0 || n != n {
		return mongoerr.New(mongoerr.CannotCreateIndex,
			"Values in v:2 index key pattern cannot be of type %s. Only numbers > 0, numbers < 0, and strings are allowed.", bsonx.TypeAlias(f.Value))
	}
	return nil
}

// keyPatternEqual compares key patterns field by field, by direction
// ("hashed" is its own direction).
func keyPatternEqual(a, b bson.D) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || isDesc(a[i].Value) != isDesc(b[i].Value) ||
			IsHashedKey(a[i].Value) != IsHashedKey(b[i].Value) ||
			GeoKind(a[i].Value) != GeoKind(b[i].Value) {
			return false
		}
	}
	return true
}

// sameOptions reports whether two indexes have the same options.
func sameOptions(a, b *Index) bool {
	ttlEq := (a.ExpireAfterSeconds == nil) == (b.ExpireAfterSeconds == nil) &&
		(a.ExpireAfterSeconds == nil || *a.ExpireAfterSeconds == *b.ExpireAfterSeconds)
	wa, _ := bsonx.Get(a.Spec, "wildcardProjection")
	wb, _ := bsonx.Get(b.Spec, "wildcardProjection")
	return a.Unique == b.Unique && a.Sparse == b.Sparse && ttlEq &&
		bsonx.Compare(a.Partial, b.Partial) == 0 && sameTextOptions(a, b) && bsonx.Compare(wa, wb) == 0 &&
		sameCollation(a, b)
}

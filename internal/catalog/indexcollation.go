package catalog

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/collation"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// An index with a non-simple collation stores each string of its keys as
// the string's collation sort key (collation.Collator.KeyValue), as MongoDB
// stores ICU sort keys: key order is the collation's order, and a unique
// index refuses strings the collation deems equal.

// Collator is the index's collator; nil for the simple collation.
func (idx *Index) Collator() *collation.Collator { return idx.coll }

// setCollation parses a spec's collation: a simple one is dropped from
// the spec (listIndexes shows none), any other is shown in full.
func (idx *Index) setCollation(v any, rest *bson.D) error {
	d, ok := v.(bson.D)
	if !ok {
		return mongoerr.New(mongoerr.TypeMismatch, "The field 'collation' in an index specification has the wrong type: %s", bsonx.TypeAlias(v))
	}
	spec, err := collation.Parse(d)
	if err != nil || spec == nil {
		return err
	}
	idx.coll = collation.New(spec)
	*rest = append(*rest, bson.E{Key: "collation", Value: spec.Doc()})
	return nil
}

// validateCollation refuses a collation on index types whose keys do not
// use it: MongoDB refuses it for text and 2d indexes.
// TODO(#14): collated wildcard and 2dsphere indexes.
func (idx *Index) validateCollation() error {
	if idx.coll == nil {
		return nil
	}
	if idx.IsText() || hasGeoKind(idx.Key, "2d") {
		return mongoerr.New(mongoerr.CannotCreateIndex, "Index type '%s' does not support collation: %v", indexTypeName(idx), idx.Spec)
	}
	_, wildcard := idx.WildcardPrefix()
	if wildcard || hasGeoKind(idx.Key, "2dsphere") {
		return mongoerr.New(mongoerr.NotImplemented, "relaydb does not support a collation on a wildcard or 2dsphere index yet")
	}
	return nil
}

func hasGeoKind(key bson.D, kind string) bool {
	for _, f := range key {
		if s, ok := f.Value.(string); ok && s == kind {
			return true
		}
	}
	return false
}

func indexTypeName(idx *Index) string {
	if idx.IsText() {
		return "text"
	}
	return "2d"
}

// inheritCollation gives spec the collection's default collation when it
// names none (an explicit {locale: "simple"} keeps the simple one).
func inheritCollation(spec bson.D, coll *Collection) bson.D {
	def, ok := bsonx.Get(coll.Options, "collation")
	if !ok {
		return spec
	}
	if _, has := bsonx.Get(spec, "collation"); has {
		return spec
	}
	return append(append(bson.D(nil), spec...), bson.E{Key: "collation", Value: def})
}

// sameCollation reports whether two indexes have the same collation.
func sameCollation(a, b *Index) bool {
	return collation.Equal(a.coll.Spec(), b.coll.Spec())
}

// collateKeyValue is v as idx's keys hold it.
func collateKeyValue(idx *Index, v any) any {
	if idx.coll == nil {
		return v
	}
	return idx.coll.KeyValue(v)
}

// shownKeyValue is a decoded key value of idx as a DuplicateKey error
// shows it: a collated index holds sort keys, arbitrary bytes, which are
// made valid UTF-8 so the reply stays valid BSON.
func shownKeyValue(idx *Index, v any) any {
	if idx.coll == nil {
		return v
	}
	switch t := v.(type) {
	case string:
		return strings.ToValidUTF8(t, "\uFFFD")
	case bson.D:
		out := make(bson.D, len(t))
		for i, e := range t {
			out[i] = bson.E{Key: e.Key, Value: shownKeyValue(idx, e.Value)}
		}
		return out
	case bson.A:
		out := make(bson.A, len(t))
		for i, e := range t {
			out[i] = shownKeyValue(idx, e)
		}
		return out
	}
	return v
}

package catalog

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/storage/keystring"
)

// A compound wildcard index (MongoDB 7.0: {"$**": 1, a: 1} or
// {a: 1, "p.$**": 1}) has one wildcard term and regular terms. Each entry
// is the key pattern's terms in order: a regular term's value, and for the
// wildcard term a (path, value) pair as a wildcard index holds
// (wildcardKeys); a document with no value under the wildcard term gets one
// entry whose pair is (MinKey, MinKey), so every document has an entry.
// As MongoDB: one wildcard term only, regular terms are ascending or
// descending values that are never arrays, they may not fall under the
// wildcard term ("$**" needs a wildcardProjection leaving them out), no
// unique, sparse or TTL.
// The planner reads it through CompoundWildcardField (exec).

// isWildcardTerm reports whether a key pattern field is a wildcard term.
func isWildcardTerm(f bson.E) bool {
	if _, num := bsonx.AsFloat64(f.Value); !num {
		return false // {"$**": "text"} is a text index
	}
	return f.Key == wildcardSuffix || strings.HasSuffix(f.Key, "."+wildcardSuffix)
}

// CompoundWildcard returns the position of the wildcard term of a compound
// wildcard index, -1 for any other index.
func (idx *Index) CompoundWildcard() int {
	if len(idx.Key) < 2 {
		return -1
	}
	for i, f := range idx.Key {
		if isWildcardTerm(f) {
			return i
		}
	}
	return -1
}

// validateCompoundWildcard checks a compound wildcard index once its
// wildcardProjection is parsed.
func (idx *Index) validateCompoundWildcard() error {
	w := idx.CompoundWildcard()
	if w < 0 {
		return nil
	}
	term := idx.Key[w].Key
	for i, f := range idx.Key {
		if i == w {
			continue
		}
		if isWildcardTerm(f) {
			return mongoerr.New(mongoerr.CannotCreateIndex, "A compound wildcard index can only have one wildcard term: %v", idx.Key)
		}
		if _, num := bsonx.AsFloat64(f.Value); !num {
			return mongoerr.New(mongoerr.CannotCreateIndex, "A compound wildcard index cannot have a '%v' term: %v", f.Value, idx.Key)
		}
		if prefix, _ := strings.CutSuffix(term, "."+wildcardSuffix); term != wildcardSuffix && (f.Key == prefix || strings.HasPrefix(f.Key, prefix+".")) {
			return mongoerr.New(mongoerr.CannotCreateIndex, "The field '%s' of a compound wildcard index overlaps its wildcard term '%s'", f.Key, term)
		}
		if term == wildcardSuffix && (idx.wcProj == nil || idx.wcProj.state(f.Key) != pathOut) {
			return mongoerr.New(mongoerr.CannotCreateIndex, "The field '%s' of a compound wildcard index must be left out of the wildcard term by its wildcardProjection", f.Key)
		}
	}
	switch {
	case idx.Unique:
		return mongoerr.New(mongoerr.CannotCreateIndex, "Index type 'wildcard' does not support the unique option")
	case idx.Sparse:
		return mongoerr.New(mongoerr.CannotCreateIndex, "Index type 'wildcard' does not support the sparse option")
	case idx.ExpireAfterSeconds != nil:
		return mongoerr.New(mongoerr.CannotCreateIndex, "Index type 'wildcard' does not support the expireAfterSeconds option")
	}
	return nil
}

// compoundWildcardKeys returns doc's keys in the compound wildcard index
// idx whose wildcard term is at w, and whether the wildcard term expanded
// an array.
func compoundWildcardKeys(idx *Index, doc bson.D, w int) ([][]byte, bool, error) {
	term := *idx
	term.Key = bson.D{idx.Key[w]}
	wkeys, multikey := wildcardKeys(&term, doc)
	if len(wkeys) == 0 {
		k := keystring.AppendValue(nil, bson.MinKey{}, false)
		wkeys = [][]byte{keystring.AppendValue(k, bson.MinKey{}, isDesc(idx.Key[w].Value))} // as wildcardWalk.add
	}
	keys := [][]byte{nil}
	for i, f := range idx.Key {
		if i == w {
			keys = crossKeys(keys, wkeys)
			continue
		}
		var isArr bool
		vals := pathValues(doc, f.Key, &isArr)
		if isArr {
			// TODO(#14): MongoDB's own code for this refusal.
			return nil, false, mongoerr.New(mongoerr.BadValue, "Compound wildcard index %s: the field '%s' is an array; its non-wildcard fields cannot be multikey", idx.Name, f.Key)
		}
		keys = extendKeys(keys, collateValues(idx, vals), isDesc(f.Value))
	}
	return dedupKeys(keys), multikey, nil
}

// crossKeys appends each suffix to each partial key.
func crossKeys(keys, suffixes [][]byte) [][]byte {
	out := make([][]byte, 0, len(keys)*len(suffixes))
	for _, k := range keys {
		for _, s := range suffixes {
			out = append(out, append(append([]byte(nil), k...), s...))
		}
	}
	return out
}

// wildcardValueSlot names the value slot of a compound wildcard view that
// no predicate bounds (compoundWildcardView with field "").
const wildcardValueSlot = "$_value"

// WildcardTerm returns compound wildcard index idx reduced to its wildcard
// term (a single wildcard index with the same projection: Covers).
func (idx *Index) WildcardTerm() *Index {
	v := *idx
	v.Key = bson.D{idx.Key[idx.CompoundWildcard()]}
	return &v
}

// CompoundWildcardField returns the view of compound wildcard index idx
// the planner scans for field (a path the term covers; "" for none): same
// storage, the wildcard term replaced by {$_path: 1, field: 1}.
func (idx *Index) CompoundWildcardField(field string) *Index {
	w := idx.CompoundWildcard()
	if field == "" {
		field = wildcardValueSlot
	}
	v := *idx
	v.Key = make(bson.D, 0, len(idx.Key)+1)
	v.Key = append(v.Key, idx.Key[:w]...)
	v.Key = append(v.Key, bson.E{Key: "$_path", Value: int32(1)}, bson.E{Key: field, Value: idx.Key[w].Value})
	v.Key = append(v.Key, idx.Key[w+1:]...)
	return &v
}

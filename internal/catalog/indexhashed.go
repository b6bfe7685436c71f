package catalog

import (
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/bsonx/bsonhash"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/storage/keystring"
)

// Hashed indexes are MongoDB's (4.4+): a key pattern with exactly one
// field whose value is "hashed", any others ascending or descending. The
// entry stores, for the hashed field, the NumberLong bsonhash.Hash of its
// value, so entries are in hash order; the other fields are stored as in
// any index. Invariants:
//   - a hashed index holds exactly one key per indexed document and is
//     never multikey: an array anywhere on any of its paths is refused
//     with Location16766, at insert, update and index build;
//   - a missing field is hashed (or stored) as null; a sparse hashed
//     index skips documents where every field is missing;
//   - it is never unique (Location16764) and has one hashed field
//     (Location31303).

// hashedKeyValue is the key pattern value that marks the hashed field.
const hashedKeyValue = "hashed"

// IsHashedKey reports whether a key pattern value means "hashed".
func IsHashedKey(v any) bool {
	s, ok := v.(string)
	return ok && s == hashedKeyValue
}

// HashedField returns the position of idx's hashed field in its key
// pattern, or -1 when idx is not a hashed index.
func (idx *Index) HashedField() int {
	for i, f := range idx.Key {
		if IsHashedKey(f.Value) {
			return i
		}
	}
	return -1
}

// validateHashed checks the options of a key pattern with hashed fields,
// in MongoDB's order (HashAccessMethod: uniqueness, then the field count).
func (idx *Index) validateHashed() error {
	n := 0
	for _, f := range idx.Key {
		if IsHashedKey(f.Value) {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	if idx.Unique {
		return mongoerr.New(mongoerr.HashedIndexUnique,
			"Currently hashed indexes cannot guarantee uniqueness. Use a regular index.")
	}
	if n > 1 {
		return mongoerr.New(mongoerr.HashedIndexTooManyFields,
			"A maximum of one index field is allowed to be hashed but found %d for 'key' %s", n, bsonx.ToString(idx.Key))
	}
	return nil
}

// hashedKeys returns the one key a hashed index holds for doc (nil when a
// sparse index skips it), after the partial filter has matched.
func hashedKeys(idx *Index, doc bson.D) ([][]byte, error) {
	var key []byte
	hasValue := false
	for _, f := range idx.Key {
		v, found, err := hashedPathValue(doc, f.Key)
		if err != nil {
			return nil, err
		}
		hasValue = hasValue || found
		v = collateKeyValue(idx, v) // a collated index hashes sort keys, as MongoDB
		if IsHashedKey(f.Value) {
			h, err := bsonhash.Hash(v)
			if err != nil {
				return nil, fmt.Errorf("catalog: hash %s of index %s: %w", f.Key, idx.Name, err)
			}
			v = h
		}
		key = keystring.AppendValue(key, v, isDesc(f.Value))
	}
	if idx.Sparse && !hasValue {
		return nil, nil
	}
	return [][]byte{key}, nil
}

// hashedPathValue follows a dotted path through documents only, as
// MongoDB's extractElementAtPathOrArrayAlongPath: a missing part or a
// scalar on the way is missing (null, found false); an array at the end
// or on the way is Location16766, naming the path up to the array.
func hashedPathValue(doc bson.D, path string) (v any, found bool, err error) {
	var cur any = doc
	rest, done := path, 0
	for {
		part, next, more := strings.Cut(rest, ".")
		d, ok := cur.(bson.D)
		if !ok {
			return nil, false, nil
		}
		v, ok := bsonx.Get(d, part)
		if !ok {
			return nil, false, nil
		}
		done += len(part)
		if _, isArr := v.(bson.A); isArr {
			return nil, false, mongoerr.New(mongoerr.HashedIndexArray,
				"Error: hashed indexes do not currently support array values. Found array at path: %s", path[:done])
		}
		if !more {
			return v, true, nil
		}
		cur, rest, done = v, next, done+1
	}
}

package catalog

import (
	"fmt"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/storage/keystring"
)

// CannotIndexParallelArrays is MongoDB's code 171 (mongoerr.CannotIndexParallelArrays).
const CannotIndexParallelArrays = mongoerr.CannotIndexParallelArrays

// missingValue marks a path absent from the document (indexed as null,
// but distinguishable for sparse indexes).
type missingValue struct{}

// indexKeys returns the distinct encoded keys (without index prefix and _id)
// that idx holds for doc, and whether doc makes idx multikey. A nil result
// with no error means doc is not indexed (sparse or partial filter).
func indexKeys(idx *Index, doc bson.D) (keys [][]byte, multikey bool, err error) {
	if idx.partial != nil && !idx.partial.Match(doc) {
		return nil, false, nil
	}
	if idx.IsText() {
		return textKeys(idx, doc)
	}
	if idx.HashedField() >= 0 {
		keys, err := hashedKeys(idx, doc)
		return keys, false, err
	}
	if idx.geo != nil {
		return geoKeys(idx, doc)
	}
	if _, ok := idx.WildcardPrefix(); ok {
		keys, multikey := wildcardKeys(idx, doc)
		return keys, multikey, nil
	}
	if w := idx.CompoundWildcard(); w >= 0 {
		return compoundWildcardKeys(idx, doc, w) // indexwildcard_compound.go
	}
	fields := make([][]any, len(idx.Key))
	var arrays []string
	allMissing := true
	for i, f := range idx.Key {
		var isArr bool
		fields[i] = pathValues(doc, f.Key, &isArr)
		if isArr {
			arrays = append(arrays, f.Key)
		}
		if !(len(fields[i]) == 1 && fields[i][0] == missingValue{}) {
			allMissing = false
		}
	}
	if len(arrays) > 1 {
		return nil, false, mongoerr.New(CannotIndexParallelArrays,
			"cannot index parallel arrays [%s] [%s]", arrays[1], arrays[0])
	}
	if idx.Sparse && allMissing {
		return nil, false, nil
	}
	keys = [][]byte{nil}
	for i, vals := range fields {
		keys = extendKeys(keys, collateValues(idx, vals), isDesc(idx.Key[i].Value))
	}
	return dedupKeys(keys), len(arrays) > 0, nil
}

// extendKeys appends each value to each partial key (cartesian product).
func extendKeys(keys [][]byte, vals []any, desc bool) [][]byte {
	out := make([][]byte, 0, len(keys)*len(vals))
	for _, k := range keys {
		for _, v := range vals {
			if v == (missingValue{}) {
				v = nil
			}
			nk := append(append([]byte(nil), k...), keystring.AppendValue(nil, v, desc)...)
			out = append(out, nk)
		}
	}
	return out
}

// collateValues maps vals to what a collated index holds (in place).
func collateValues(idx *Index, vals []any) []any {
	if idx.coll == nil {
		return vals
	}
	for i, v := range vals {
		vals[i] = collateKeyValue(idx, v)
	}
	return vals
}

// dedupKeys removes repeated keys, keeping first occurrences.
func dedupKeys(keys [][]byte) [][]byte {
	if len(keys) < 2 {
		return keys
	}
	seen := make(map[string]bool, len(keys))
	out := keys[:0]
	for _, k := range keys {
		if !seen[string(k)] {
			seen[string(k)] = true
			out = append(out, k)
		}
	}
	return out
}

// isDesc reports whether a key pattern value means descending.
func isDesc(v any) bool {
	f, ok := bsonx.AsFloat64(v)
	return ok && f < 0
}

// pathValues returns the values of a dotted path in doc, expanding arrays
// MongoDB's way: an array on the path yields one value per element (an
// empty array at the end yields undefined), a missing path yields
// missingValue. isArr is set when an array was expanded.
func pathValues(doc bson.D, path string, isArr *bool) []any {
	var out []any
	walkPath(doc, strings.Split(path, "."), &out, isArr)
	return out
}

func walkPath(v any, segs []string, out *[]any, isArr *bool) {
	if len(segs) == 0 {
		walkLeaf(v, out, isArr)
		return
	}
	switch t := v.(type) {
	case bson.D:
		f, ok := bsonx.Get(t, segs[0])
		if !ok {
			*out = append(*out, missingValue{})
			return
		}
		walkPath(f, segs[1:], out, isArr)
	case bson.A:
		walkArray(t, segs, out, isArr)
	default:
		*out = append(*out, missingValue{})
	}
}

// walkArray follows segs into each document element of a (or into element
// i for a numeric segment). Yields null when nothing is found.
func walkArray(a bson.A, segs []string, out *[]any, isArr *bool) {
	if i, err := strconv.Atoi(segs[0]); err == nil && i >= 0 && i < len(a) {
		walkPath(a[i], segs[1:], out, isArr)
		return
	}
	*isArr = true
	n := len(*out)
	for _, e := range a {
		if d, ok := e.(bson.D); ok {
			walkPath(d, segs, out, isArr)
		}
	}
	if len(*out) == n {
		*out = append(*out, nil)
	}
}

// walkLeaf records the value at the end of a path.
func walkLeaf(v any, out *[]any, isArr *bool) {
	a, ok := v.(bson.A)
	if !ok {
		*out = append(*out, v)
		return
	}
	*isArr = true
	if len(a) == 0 {
		*out = append(*out, bson.Undefined{})
		return
	}
	*out = append(*out, a...)
}

// keyValueDoc returns {field: value, ...} for the DuplicateKey message,
// decoding an encoded key of idx.
func keyValueDoc(idx *Index, key []byte) (bson.D, error) {
	out := make(bson.D, 0, len(idx.Key))
	rest := key
	for _, f := range idx.Key {
		v, r, err := keystring.Decode(rest, isDesc(f.Value))
		if err != nil {
			return nil, fmt.Errorf("catalog: decode key of %s: %w", idx.Name, err)
		}
		out = append(out, bson.E{Key: f.Key, Value: shownKeyValue(idx, v)})
		rest = r
	}
	return out, nil
}

// splitIDFromKey returns the keystring(_id) suffix of a non-unique index
// entry's key (after the index prefix).
func splitIDFromKey(idx *Index, key []byte) ([]byte, error) {
	rest := key
	for _, f := range idx.Key {
		_, r, err := keystring.Decode(rest, isDesc(f.Value))
		if err != nil {
			return nil, fmt.Errorf("catalog: decode key of %s: %w", idx.Name, err)
		}
		rest = r
	}
	return rest, nil
}

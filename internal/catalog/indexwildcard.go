package catalog

import (
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/storage/keystring"
)

// A wildcard index ({"$**": 1} or {"path.$**": 1}) holds one entry per
// leaf value under its prefix: keystring(path) + keystring(value), array
// positions left out of the path (array elements are indexed at the
// array's path, as MongoDB does). An empty document or array is indexed
// as a value of its own. "$**" leaves _id out, and holds only the paths
// its wildcardProjection keeps (indexwildcard_proj.go). The planner reads
// it through WildcardField, an index of key {$_path: 1, <field>: 1}.
// Compound wildcard indexes: indexwildcard_compound.go.

// wildcardSuffix ends a wildcard key pattern field.
const wildcardSuffix = "$**"

// WildcardPrefix reports whether idx is a wildcard index and returns the
// path it covers ("" for every field).
func (idx *Index) WildcardPrefix() (string, bool) {
	if len(idx.Key) != 1 {
		return "", false
	}
	f := idx.Key[0]
	if _, num := bsonx.AsFloat64(f.Value); !num {
		return "", false // {"$**": "text"} is a text index
	}
	if f.Key == wildcardSuffix {
		return "", true
	}
	if p, ok := strings.CutSuffix(f.Key, "."+wildcardSuffix); ok {
		return p, true
	}
	return "", false
}

// validateWildcard refuses the options and shapes relaydb's wildcard
// indexes lack, as MongoDB does for unique, sparse and TTL.
func (idx *Index) validateWildcard() error {
	if _, ok := idx.WildcardPrefix(); !ok { // compound: validateCompoundWildcard
		return nil
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

// WildcardField returns the view of wildcard index idx that the planner
// scans for one field: same storage, key pattern {$_path: 1, field: 1}.
func (idx *Index) WildcardField(field string) *Index {
	v := *idx
	v.Key = bson.D{{Key: "$_path", Value: int32(1)}, {Key: field, Value: idx.Key[0].Value}}
	return &v
}

// Covers reports whether wildcard index idx holds the values of path.
func (idx *Index) Covers(path string) bool {
	prefix, ok := idx.WildcardPrefix()
	switch {
	case !ok:
		return false
	case prefix == "":
		return idx.wcProj.state(path) == pathIn
	}
	return path == prefix || strings.HasPrefix(path, prefix+".")
}

// wildcardKeys returns the keys of doc in wildcard index idx (sorted,
// distinct) and whether an array was expanded.
func wildcardKeys(idx *Index, doc bson.D) ([][]byte, bool) {
	prefix, _ := idx.WildcardPrefix()
	desc := isDesc(idx.Key[0].Value)
	w := &wildcardWalk{desc: desc, keys: map[string]bool{}, proj: idx.wcProj}
	if prefix == "" {
		for _, f := range doc {
			w.value(f.Key, f.Value, 0)
		}
	} else {
		w.all = true
		var isArr bool
		for _, v := range pathValues(doc, prefix, &isArr) {
			if v != (missingValue{}) && v != nil {
				w.value(prefix, v, 0)
			}
		}
		w.multikey = w.multikey || isArr
	}
	keys := make([][]byte, 0, len(w.keys))
	for k := range w.keys {
		keys = append(keys, []byte(k))
	}
	sort.Slice(keys, func(i, j int) bool { return string(keys[i]) < string(keys[j]) })
	return keys, w.multikey
}

// maxWildcardDepth bounds the walk (BSON nesting is bounded too).
const maxWildcardDepth = 200

type wildcardWalk struct {
	proj     *wildcardProj // nil: every path but _id (prefix "": state)
	all      bool          // a path prefix index: every path
	desc     bool
	multikey bool
	keys     map[string]bool
}

func (w *wildcardWalk) value(path string, v any, depth int) {
	if depth > maxWildcardDepth {
		return
	}
	st := pathIn
	if !w.all {
		st = w.proj.state(path)
	}
	if st == pathOut {
		return
	}
	if _, isDoc := v.(bson.D); st == pathPartial && !isDoc {
		if a, ok := v.(bson.A); ok {
			for _, e := range a {
				if d, ok := e.(bson.D); ok {
					w.multikey = true
					w.value(path, d, depth+1)
				}
			}
		}
		return
	}
	switch t := v.(type) {
	case bson.D:
		if len(t) == 0 && st == pathIn {
			w.add(path, t)
		}
		for _, f := range t {
			w.value(path+"."+f.Key, f.Value, depth+1)
		}
	case bson.A:
		w.multikey = true
		if len(t) == 0 {
			w.add(path, t)
		}
		for _, e := range t {
			switch e.(type) {
			case bson.D:
				w.value(path, e, depth+1)
			default:
				w.add(path, e) // nested arrays are values of their own
			}
		}
	default:
		w.add(path, v)
	}
}

func (w *wildcardWalk) add(path string, v any) {
	k := keystring.AppendValue(nil, path, false)
	k = keystring.AppendValue(k, v, w.desc)
	w.keys[string(k)] = true
}

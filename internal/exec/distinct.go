package exec

import (
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// distinctSet collects values, deduplicated by BSON equality.
type distinctSet struct {
	vals []any
	coll bsonx.Collator // equality and order of strings; nil: binary
}

func (s *distinctSet) add(v any) {
	for _, x := range s.vals {
		if bsonx.CompareColl(x, v, s.coll) == 0 && bsonx.CanonicalType(x) == bsonx.CanonicalType(v) {
			return
		}
	}
	s.vals = append(s.vals, v)
}

// addPath adds the values at a dotted path, expanding arrays on the way
// and at the end.
func (s *distinctSet) addPath(doc bson.D, path string) {
	s.walk(doc, strings.Split(path, "."))
}

func (s *distinctSet) walk(v any, parts []string) {
	if len(parts) == 0 {
		if a, ok := v.(bson.A); ok {
			for _, x := range a {
				s.add(x)
			}
			return
		}
		s.add(v)
		return
	}
	switch t := v.(type) {
	case bson.D:
		if child, ok := bsonx.Get(t, parts[0]); ok {
			s.walk(child, parts[1:])
		}
	case bson.A:
		if i, ok := bsonx.ArrayIndex(parts[0]); ok && i < len(t) {
			s.walk(t[i], parts[1:])
			return
		}
		for _, x := range t {
			if d, ok := x.(bson.D); ok {
				s.walk(d, parts)
			}
		}
	}
}

func (s *distinctSet) sorted() bson.A {
	sort.SliceStable(s.vals, func(i, j int) bool { return bsonx.CompareColl(s.vals[i], s.vals[j], s.coll) < 0 })
	out := make(bson.A, len(s.vals))
	copy(out, s.vals)
	return out
}

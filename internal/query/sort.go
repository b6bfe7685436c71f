package query

import (
	"strings"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// SortField is one key of a sort specification.
type SortField struct {
	Path string
	Desc bool
}

// Sort is a compiled sort specification. It is immutable.
type Sort struct {
	fields  []SortField
	walkers []walker
	coll    bsonx.Collator // orders strings; nil is binary
}

// WithCollator returns s ordering strings by c (nil: binary).
func (s *Sort) WithCollator(c bsonx.Collator) *Sort {
	t := *s
	t.coll = c
	return &t
}

// Collator is the collator s orders strings by (nil: binary).
func (s *Sort) Collator() bsonx.Collator { return s.coll }

// CompileSort validates a sort specification: each value must be 1 or -1.
// {$meta: ...} sorts are not supported.
func CompileSort(spec bson.D) (*Sort, error) {
	s := &Sort{}
	for _, e := range spec {
		desc, err := sortDirection(e)
		if err != nil {
			return nil, err
		}
		if e.Key == "" || strings.HasPrefix(e.Key, ".") || strings.HasSuffix(e.Key, ".") || strings.Contains(e.Key, "..") {
			return nil, badValue("Empty field names in sort pattern are not allowed: %s", e.Key)
		}
		s.fields = append(s.fields, SortField{Path: e.Key, Desc: desc})
		s.walkers = append(s.walkers, newWalker(e.Key, false))
	}
	return s, nil
}

func sortDirection(e bson.E) (desc bool, err error) {
	if d, ok := e.Value.(bson.D); ok && len(d) > 0 && d[0].Key == "$meta" {
		// TODO(#2): {$meta: "textScore"} / "searchScore" sorts.
		return false, notImplemented("$meta sort is not supported")
	}
	if !bsonx.IsNumber(e.Value) {
		return false, codeErr(mongoerr.SortKeyIllegal, "Illegal key in $sort specification: %s: %s", e.Key, show(e.Value))
	}
	n, ok := bsonx.AsInt64(e.Value)
	if !ok || (n != 1 && n != -1) {
		return false, codeErr(mongoerr.SortOrderInvalid, "$sort key ordering must be 1 (for ascending) or -1 (for descending)")
	}
	return n == -1, nil
}

// Fields returns the sort keys in order.
func (s *Sort) Fields() []SortField { return s.fields }

// emptyArray stands for the sort key of an empty array, which sorts before
// null (and everything else but MinKey).
type emptyArray struct{}

// Key is a document's precomputed sort key, one value per sort field.
type Key []any

// Key computes doc's sort key: for each field, the smallest (ascending) or
// largest (descending) of the values its path designates, with arrays
// expanded one level as index keys are; a missing path is null.
func (s *Sort) Key(doc bson.D) Key {
	k := make(Key, len(s.fields))
	for i, f := range s.fields {
		k[i] = extremeValue(s.walkers[i], doc, f.Desc, s.coll)
	}
	return k
}

func extremeValue(w walker, doc bson.D, desc bool, coll bsonx.Collator) any {
	var best any
	have := false
	consider := func(v any) {
		if !have || better(v, best, desc, coll) {
			best, have = v, true
		}
	}
	w.walk(doc, func(v any, missing bool, _ int) bool {
		arr, isArr := v.(bson.A)
		switch {
		case missing:
			consider(nil)
		case isArr && len(arr) == 0:
			consider(emptyArray{})
		case isArr:
			for _, e := range arr {
				consider(e)
			}
		default:
			consider(v)
		}
		return false
	})
	if !have {
		return nil // e.g. an array of scalars before the end of the path
	}
	return best
}

func better(v, best any, desc bool, coll bsonx.Collator) bool {
	c := compareKeyValues(v, best, coll)
	if desc {
		return c > 0
	}
	return c < 0
}

func compareKeyValues(a, b any, coll bsonx.Collator) int {
	_, ea := a.(emptyArray)
	_, eb := b.(emptyArray)
	switch {
	case ea && eb:
		return 0
	case ea:
		return keyRank(b)
	case eb:
		return -keyRank(a)
	}
	return bsonx.CompareColl(a, b, coll)
}

// keyRank orders an empty array against v: below everything but MinKey.
func keyRank(v any) int {
	if _, ok := v.(bson.MinKey); ok {
		return 1
	}
	return -1
}

// CompareKeys compares two keys computed by s.Key.
func (s *Sort) CompareKeys(a, b Key) int {
	for i, f := range s.fields {
		c := compareKeyValues(a[i], b[i], s.coll)
		if f.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// Compare orders documents a and b by the sort specification.
func (s *Sort) Compare(a, b bson.D) int { return s.CompareKeys(s.Key(a), s.Key(b)) }

// Less reports whether a sorts before b.
func (s *Sort) Less(a, b bson.D) bool { return s.Compare(a, b) < 0 }

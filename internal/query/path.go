package query

import (
	"strings"

	"github.com/relaydb/relaydb/internal/bsonx"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// visitFn receives one candidate value for a path. missing reports that the
// path led nowhere (v is then nil). pos is the index in the first array the
// traversal went through, or -1. Returning true stops the walk.
type visitFn func(v any, missing bool, pos int) bool

// walker enumerates the values a dotted path designates in a document.
type walker struct {
	parts []string
	// expand makes an array at the end of the path yield its elements
	// before the array itself.
	expand bool
}

func newWalker(path string, expand bool) walker {
	return walker{parts: strings.Split(path, "."), expand: expand}
}

// walk calls fn for every candidate value of w's path in doc and reports
// whether some call returned true.
func (w walker) walk(doc bson.D, fn visitFn) bool {
	return w.inDoc(doc, 0, -1, fn)
}

func (w walker) inDoc(doc bson.D, i, pos int, fn visitFn) bool {
	v, ok := bsonx.Get(doc, w.parts[i])
	if !ok {
		return fn(nil, true, pos)
	}
	return w.inValue(v, i+1, pos, fn)
}

func (w walker) inValue(v any, i, pos int, fn visitFn) bool {
	if i == len(w.parts) {
		return w.leaf(v, pos, fn)
	}
	switch x := v.(type) {
	case bson.D:
		return w.inDoc(x, i, pos, fn)
	case bson.A:
		return w.inArray(x, i, pos, fn)
	}
	return fn(nil, true, pos)
}

func (w walker) leaf(v any, pos int, fn visitFn) bool {
	if arr, ok := v.(bson.A); ok && w.expand {
		for j, e := range arr {
			if fn(e, false, firstPos(pos, j)) {
				return true
			}
		}
	}
	return fn(v, false, pos)
}

// inArray continues the path at component i inside an array: a numeric
// component selects that element; every other document element is searched
// for the rest of the path. Scalars and nested arrays are skipped.
func (w walker) inArray(arr bson.A, i, pos int, fn visitFn) bool {
	idx, isIdx := bsonx.ArrayIndex(w.parts[i])
	for j, e := range arr {
		if isIdx && j == idx {
			if w.inValue(e, i+1, pos, fn) {
				return true
			}
			continue
		}
		if d, ok := e.(bson.D); ok && w.inDoc(d, i, firstPos(pos, j), fn) {
			return true
		}
	}
	return false
}

func firstPos(pos, j int) int {
	if pos >= 0 {
		return pos
	}
	return j
}

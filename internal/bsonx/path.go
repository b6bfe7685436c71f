package bsonx

import (
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Get returns the value of the first field named key in doc.
func Get(doc bson.D, key string) (any, bool) {
	for _, e := range doc {
		if e.Key == key {
			return e.Value, true
		}
	}
	return nil, false
}

// GetPath follows a dotted path through documents. A segment applied to an
// array must be an array index ("0", "12"; no sign or leading zeros) and
// selects that element; arrays are never expanded. It reports false when
// any segment is missing or applied to a scalar.
func GetPath(doc bson.D, path string) (any, bool) {
	var cur any = doc
	for {
		seg, rest, more := strings.Cut(path, ".")
		v, ok := step(cur, seg)
		if !ok || !more {
			return v, ok
		}
		cur, path = v, rest
	}
}

func step(cur any, seg string) (any, bool) {
	switch c := cur.(type) {
	case bson.D:
		return Get(c, seg)
	case bson.A:
		return index(c, seg)
	case []any:
		return index(c, seg)
	}
	return nil, false
}

func index(a []any, seg string) (any, bool) {
	i, ok := ArrayIndex(seg)
	if !ok || i >= len(a) {
		return nil, false
	}
	return a[i], true
}

// ArrayIndex parses a path segment as an array index: decimal digits with
// no sign and no leading zero (except "0" itself).
func ArrayIndex(seg string) (int, bool) {
	if seg == "" || len(seg) > 9 || (len(seg) > 1 && seg[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(seg); i++ {
		if seg[i] < '0' || seg[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(seg)
	return n, err == nil
}

// Clone returns a deep copy of v: documents, arrays, binary data and
// code-with-scope scopes are copied; other values are immutable.
func Clone(v any) any {
	switch x := v.(type) {
	case bson.D:
		return CloneDoc(x)
	case bson.A:
		return cloneArray(x)
	case []any:
		return []any(cloneArray(x))
	case bson.Binary:
		return bson.Binary{Subtype: x.Subtype, Data: cloneBytes(x.Data)}
	case []byte:
		return cloneBytes(x)
	case bson.CodeWithScope:
		return bson.CodeWithScope{Code: x.Code, Scope: Clone(x.Scope)}
	}
	return v
}

// CloneDoc returns a deep copy of doc (nil stays nil).
func CloneDoc(doc bson.D) bson.D {
	if doc == nil {
		return nil
	}
	out := make(bson.D, len(doc))
	for i, e := range doc {
		out[i] = bson.E{Key: e.Key, Value: Clone(e.Value)}
	}
	return out
}

func cloneArray(a []any) bson.A {
	if a == nil {
		return nil
	}
	out := make(bson.A, len(a))
	for i, v := range a {
		out[i] = Clone(v)
	}
	return out
}

func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

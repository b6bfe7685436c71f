package bsonxtest

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// CanonicalDocs renders result documents for comparing two ways of
// computing them (a sharded and an unsharded run, a split and a whole
// pipeline): arrays as multisets, doubles to 9 significant digits (sums
// added in another order differ in the last bits), one extended-JSON line
// per document, the lines sorted unless ordered.
func CanonicalDocs(docs []bson.D, ordered bool) string {
	s := make([]string, len(docs))
	for i, d := range docs {
		s[i] = extJSON(canonical(d))
	}
	if !ordered {
		slices.Sort(s)
	}
	return strings.Join(s, "\n")
}

func canonical(v any) any {
	switch t := v.(type) {
	case bson.D:
		out := make(bson.D, len(t))
		for i, e := range t {
			out[i] = bson.E{Key: e.Key, Value: canonical(e.Value)}
		}
		return out
	case bson.A:
		out := make(bson.A, len(t))
		for i, x := range t {
			out[i] = canonical(x)
		}
		slices.SortFunc(out, func(a, b any) int { return strings.Compare(extJSON(a), extJSON(b)) })
		return out
	case float64:
		if t == 0 || math.IsNaN(t) || math.IsInf(t, 0) {
			return t
		}
		return fmt.Sprintf("%.9g", t)
	}
	return v
}

func extJSON(v any) string {
	b, err := bson.MarshalExtJSON(bson.D{{Key: "v", Value: v}}, false, false)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

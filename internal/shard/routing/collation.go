package routing

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/collation"
)

// ForCollation is the part of filter a router may target by when the
// operation runs under collation coll (a command's or statement's
// collation field, nil when absent). Chunks are split by binary key
// order, so under a non-simple collation a string comparison can match
// documents in any chunk (MongoDB broadcasts such queries): every
// top-level clause holding a string is dropped, which widens the target
// to a superset. Clauses without strings still target.
// TODO(#14): a sharded collection's default collation (config.collections
// defaultCollation) when the operation gives none.
func ForCollation(filter bson.D, coll any) bson.D {
	d, _ := coll.(bson.D)
	if len(filter) == 0 || collation.IsSimple(d) {
		return filter
	}
	out := make(bson.D, 0, len(filter))
	for _, e := range filter {
		if !hasString(e.Value) {
			out = append(out, e)
		}
	}
	return out
}

// hasString reports a string or symbol in v, at any depth.
func hasString(v any) bool {
	switch t := v.(type) {
	case string, bson.Symbol:
		return true
	case bson.D:
		for _, e := range t {
			if hasString(e.Value) {
				return true
			}
		}
	case bson.A:
		for _, e := range t {
			if hasString(e) {
				return true
			}
		}
	}
	return false
}

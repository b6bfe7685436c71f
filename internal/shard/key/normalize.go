package key

import "go.mongodb.org/mongo-driver/v2/bson"

// Normalize returns k rearranged as a key of p (MongoDB's
// ShardKeyPattern::normalizeShardKey): the value of each of p's fields,
// found by its path as a top-level field name of k, in p's order. false
// when k has more fields than p, lacks one, or holds an array. It is how
// a command's split point ({middle: {b: 1, a: 2}}) becomes a chunk bound.
func (p Pattern) Normalize(k bson.D) (bson.D, bool) {
	if len(k) > len(p.fields) {
		return nil, false
	}
	out := make(bson.D, len(p.fields))
	for i, f := range p.fields {
		v, ok := field(k, f.Path)
		if !ok || isArray(v) {
			return nil, false
		}
		out[i] = bson.E{Key: f.Path, Value: v}
	}
	return out, true
}

package routing

import (
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// maxOrBranches bounds the $or branches Target unions; more broadcast.
const maxOrBranches = 64

// targetOr targets a filter with one top-level $or as the union of its
// branches, each joined to the rest of the filter (MongoDB unions the
// branches' index bounds). ok is false when the filter has no such $or or
// some branch does not constrain the key: the caller then ignores the $or.
func (m *ChunkManager) targetOr(filter bson.D) (shards []string, ok bool) {
	i := slices.IndexFunc(filter, func(e bson.E) bool { return e.Key == "$or" })
	if i < 0 || slices.ContainsFunc(filter[i+1:], func(e bson.E) bool { return e.Key == "$or" }) {
		return nil, false
	}
	branches, isArray := filter[i].Value.(bson.A)
	if !isArray || len(branches) < 2 || len(branches) > maxOrBranches {
		return nil, false
	}
	rest := slices.Delete(slices.Clone(filter), i, i+1)
	union := map[string]bool{}
	for _, b := range branches {
		branch, isDoc := b.(bson.D)
		if !isDoc {
			return nil, false
		}
		sub := append(slices.Clone(rest), bson.E{Key: "$and", Value: bson.A{branch}})
		got, targeted := m.target(sub)
		if !targeted {
			return nil, false
		}
		for _, s := range got {
			union[s] = true
		}
	}
	for s := range union {
		shards = append(shards, s)
	}
	slices.Sort(shards)
	return shards, true
}

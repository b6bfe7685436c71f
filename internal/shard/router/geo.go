package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/query"
)

// A $near find over several shards: each shard returns its documents
// nearest first, and the router merges them by the distance it computes
// from each document's locations (query.NearOrder), as mongos merges by
// the shards' sort keys. The location path is kept in the shards'
// projection for that and stripped from the documents returned.
// TODO(#14): legacy $near over 2dsphere indexes (radians) is merged by
// flat distance.

// nearMerge returns the distance order of a filter's $near (nil without
// one, or when an explicit sort decides the order) and the sort keys the
// shards' projection must keep.
func nearMerge(filter, sortSpec bson.D) (func(bson.D) float64, bson.D) {
	if len(sortSpec) > 0 {
		return nil, sortSpec
	}
	path, dist, ok := query.NearOrder(filter)
	if !ok {
		return nil, sortSpec
	}
	return dist, bson.D{{Key: path, Value: int32(1)}}
}

// less orders two buffered documents for the merge.
func (mc *mergedCursor) less(a, b bson.D) bool {
	if mc.near != nil {
		return mc.near(a) < mc.near(b)
	}
	return compareBySortColl(a, b, mc.sort, mc.collator) < 0
}

// geoNearSortKey is the merge order of a leading $geoNear run on every
// shard: its distanceField ascending (nil for a malformed stage, which
// the merger then refuses).
func geoNearSortKey(spec any) bson.D {
	d, _ := spec.(bson.D)
	for _, e := range d {
		if f, ok := e.Value.(string); ok && e.Key == "distanceField" && f != "" {
			return bson.D{{Key: f, Value: int32(1)}}
		}
	}
	return nil
}

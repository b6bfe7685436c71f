package routing

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/shard/key"
)

// ShardKeyFromFilter returns the whole shard key a filter pins, as
// MongoDB's extractShardKeyFromQuery: every key field equal to one value
// (by equality, $eq, a one-value $in, a parent document or a range closed
// on one value), the hashed field replaced by its Hash. false when some
// field is not pinned (a hashed number whose equal values hash apart, as
// 1.5 and NumberDecimal("1.5") do, is not): a single-document write must then be targeted
// another way. Every document the filter matches has this key.
func ShardKeyFromFilter(p key.Pattern, filter bson.D) (bson.D, bool) {
	k := make(bson.D, p.Len())
	for i, f := range p.Fields() {
		l, ok := fieldBounds(filter, f.Path)
		if !ok || len(l) != 1 || !l.isPoints() {
			return nil, false
		}
		if f.Hashed {
			if l, ok = hashedBounds(l); !ok || len(l) != 1 {
				return nil, false
			}
		}
		k[i] = bson.E{Key: f.Path, Value: l[0].lo}
	}
	return k, true
}

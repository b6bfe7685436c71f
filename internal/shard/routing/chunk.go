package routing

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/shard/key"
)

// Chunk is one range [Min, Max) of the shard key space, as config.chunks
// holds it: the bounds are shard keys (MinKey/MaxKey at the ends), Shard
// the owning shard's id, Lastmod the version of its last change.
type Chunk struct {
	Min     bson.D
	Max     bson.D
	Shard   string
	Lastmod ChunkVersion
}

// Contains reports whether k lies in [Min, Max).
func (c Chunk) Contains(k bson.D) bool {
	return key.Compare(c.Min, k) <= 0 && key.Compare(k, c.Max) < 0
}

// Range renders the bounds as MongoDB's ChunkRange::toString: [min, max).
func (c Chunk) Range() string {
	return "[" + key.Format(c.Min) + ", " + key.Format(c.Max) + ")"
}

// overlaps reports whether the chunk meets the closed range [lo, hi]
// (MongoDB's forEachOverlappingChunk with isMaxInclusive).
func (c Chunk) overlaps(lo, hi bson.D) bool {
	return key.Compare(lo, c.Max) < 0 && key.Compare(c.Min, hi) <= 0
}

package routing

import (
	"math"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
)

// DefaultHashedChunksPerShard is how many chunks per shard sharding an
// empty collection on a hashed-prefix key creates when numInitialChunks is
// not given: MongoDB's SplitPointsBasedSplitPolicy uses numShards * 2
// (docs: "MongoDB will automatically create and migrate chunks so that
// each shard has two chunks"). MongoDB 7.1+ (SERVER-76405) creates one per
// shard; relaydb reports FCV 7.0 and keeps two.
const DefaultHashedChunksPerShard = 2

// maxInitialChunksPerShard bounds numInitialChunks per shard, as MongoDB
// bounds it by kMaxSplitPoints (8192) per shard.
const maxInitialChunksPerShard = 8192

// InitialSplit says where the first chunks of a newly sharded, empty
// collection go.
type InitialSplit struct {
	Primary        string   // the database's primary shard; required
	Shards         []string // every shard, in order; empty means [Primary]
	ChunksPerShard int      // hashed prefix only; 0 means DefaultHashedChunksPerShard
}

// InitialChunks returns the chunks MongoDB's InitialSplitPolicy creates
// for an empty collection (no zones, no explicit split points): a key
// without a hashed prefix gets one chunk [MinKey, MaxKey) on the primary
// shard (SingleChunkOnPrimarySplitPolicy); a hashed-prefix key gets
// ChunksPerShard*len(Shards) chunks split evenly over the int64 hash space
// (calculateHashedSplitPoints), handed out ChunksPerShard contiguous chunks
// per shard in Shards order (generateShardCollectionInitialChunks). The
// versions are 1|0, 1|1, ... in key order, in coll's epoch and timestamp.
func InitialChunks(coll Collection, s InitialSplit) ([]Chunk, error) {
	if s.Primary == "" {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "a primary shard is required")
	}
	shards := s.Shards
	if len(shards) == 0 {
		shards = []string{s.Primary}
	}
	perShard := s.ChunksPerShard
	if perShard == 0 {
		perShard = DefaultHashedChunksPerShard
	}
	if perShard < 0 || perShard > maxInitialChunksPerShard {
		return nil, mongoerr.New(mongoerr.InvalidOptions,
			"numInitialChunks cannot be more than %d per shard", maxInitialChunksPerShard)
	}
	if !coll.Key.HasHashedPrefix() {
		return placeChunks(coll, nil, s.Primary, []string{s.Primary}, 1), nil
	}
	n := perShard * len(shards)
	return placeChunks(coll, hashedSplitPoints(coll.Key, n), s.Primary, shards, max(n/len(shards), 1)), nil
}

// hashedSplitPoints is MongoDB's calculateHashedSplitPoints with no
// prefix: n-1 points symmetric around 0 over the int64 space, the hashed
// (first) field an int64 and every later field MinKey.
func hashedSplitPoints(p key.Pattern, n int) []bson.D {
	if n <= 1 {
		return nil
	}
	interval := (math.MaxInt64 / int64(n)) * 2
	var values []int64
	current := int64(0)
	if n%2 == 0 {
		values = append(values, 0)
		current += interval
	} else {
		current += interval / 2
	}
	for i := 0; i < (n-1)/2; i++ {
		values = append(values, current, -current)
		current += interval
	}
	slices.Sort(values)
	points := make([]bson.D, len(values))
	for i, v := range values {
		points[i] = p.GlobalMin()
		points[i][0].Value = v
	}
	return points
}

// placeChunks cuts [GlobalMin, GlobalMax) at points and assigns the i-th
// chunk to shards[(i/contiguous) % len(shards)], except that the first
// goes to the primary when there are fewer chunks than shards.
func placeChunks(coll Collection, points []bson.D, primary string, shards []string, contiguous int) []Chunk {
	version := ChunkVersion{Epoch: coll.Epoch, Timestamp: coll.Timestamp, Major: 1}
	bounds := slices.Concat([]bson.D{coll.Key.GlobalMin()}, points, []bson.D{coll.Key.GlobalMax()})
	chunks := make([]Chunk, 0, len(bounds)-1)
	for i := 0; i+1 < len(bounds); i++ {
		shard := shards[(i/contiguous)%len(shards)]
		if i == 0 && len(points)+1 < len(shards) {
			shard = primary
		}
		chunks = append(chunks, Chunk{Min: bounds[i], Max: bounds[i+1], Shard: shard, Lastmod: version})
		version = version.IncMinor()
	}
	return chunks
}

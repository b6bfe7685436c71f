package routing

import (
	"slices"
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
)

// Collection is what config.collections says about a sharded collection.
type Collection struct {
	NS        string
	UUID      bson.Binary // subtype 4
	Key       key.Pattern
	Unique    bool
	Epoch     bson.ObjectID
	Timestamp bson.Timestamp
}

// ChunkManager is the immutable routing table of one collection. See the
// package invariants.
type ChunkManager struct {
	coll        Collection
	chunks      []Chunk // sorted by Min, covering the key space once
	collVersion ChunkVersion
	placement   map[string]ChunkVersion // shard -> greatest lastmod
	shards      []string                // sorted ids of the shards owning chunks
}

// New builds the routing table of coll from its chunks (in any order) and
// checks the package invariants; a violation is ConflictingOperationInProgress
// (117), as MongoDB's routing table reports a gap or overlap (a router
// refreshes and retries).
func New(coll Collection, chunks []Chunk) (*ChunkManager, error) {
	if coll.Key.Len() == 0 {
		return nil, inconsistent("collection %s has no shard key pattern", coll.NS)
	}
	sorted := slices.Clone(chunks)
	slices.SortStableFunc(sorted, func(a, b Chunk) int { return key.Compare(a.Min, b.Min) })
	if err := checkChunks(coll, sorted); err != nil {
		return nil, err
	}
	m := &ChunkManager{coll: coll, chunks: sorted, placement: map[string]ChunkVersion{}}
	m.index()
	return m, nil
}

func (m *ChunkManager) index() {
	for _, c := range m.chunks {
		if m.collVersion.Less(c.Lastmod) {
			m.collVersion = c.Lastmod
		}
		if v, ok := m.placement[c.Shard]; !ok || v.Less(c.Lastmod) {
			m.placement[c.Shard] = c.Lastmod
		}
	}
	for s := range m.placement {
		m.shards = append(m.shards, s)
	}
	slices.Sort(m.shards)
}

func inconsistent(format string, args ...any) error {
	return mongoerr.New(mongoerr.ConflictingOperationInProgress, format, args...)
}

// Collection returns the collection's metadata.
func (m *ChunkManager) Collection() Collection { return m.coll }

// Pattern returns the shard key pattern.
func (m *ChunkManager) Pattern() key.Pattern { return m.coll.Key }

// Chunks returns the chunks sorted by min. Callers must not modify them.
func (m *ChunkManager) Chunks() []Chunk { return m.chunks }

// ChunksOn returns the chunks shard owns, sorted by min.
func (m *ChunkManager) ChunksOn(shard string) []Chunk {
	var out []Chunk
	for _, c := range m.chunks {
		if c.Shard == shard {
			out = append(out, c)
		}
	}
	return out
}

// Shards returns the sorted ids of the shards that own at least one chunk.
func (m *ChunkManager) Shards() []string { return slices.Clone(m.shards) }

// CollectionVersion returns the greatest lastmod of any chunk.
func (m *ChunkManager) CollectionVersion() ChunkVersion { return m.collVersion }

// PlacementVersion returns the greatest lastmod among shard's chunks, or
// the collection generation with major.minor 0.0 if it owns none (what
// MongoDB's shard version carries for such a shard).
func (m *ChunkManager) PlacementVersion(shard string) ChunkVersion {
	if v, ok := m.placement[shard]; ok {
		return v
	}
	return ChunkVersion{Epoch: m.coll.Epoch, Timestamp: m.coll.Timestamp}
}

// FindChunk returns the chunk whose [min, max) holds the shard key k (as
// Extract returns it). A key of the wrong shape, or one no chunk holds
// (all MaxKey), is ShardKeyNotFound (61) as in MongoDB's
// findIntersectingChunk.
func (m *ChunkManager) FindChunk(k bson.D) (Chunk, error) {
	if i, ok := m.chunkIndex(k); ok {
		return m.chunks[i], nil
	}
	return Chunk{}, mongoerr.New(mongoerr.ShardKeyNotFound,
		"Cannot target single shard using key %s for ns %s", key.Format(k), m.coll.NS)
}

func (m *ChunkManager) chunkIndex(k bson.D) (int, bool) {
	if len(k) != m.coll.Key.Len() {
		return 0, false
	}
	i := sort.Search(len(m.chunks), func(i int) bool { return key.Compare(k, m.chunks[i].Max) < 0 })
	return i, i < len(m.chunks) && m.chunks[i].Contains(k)
}

// ShardFor returns the shard owning doc: its shard key's chunk's shard.
func (m *ChunkManager) ShardFor(doc bson.D) (string, error) {
	k, err := m.coll.Key.Extract(doc)
	if err != nil {
		return "", err
	}
	c, err := m.FindChunk(k)
	return c.Shard, err
}

package routing

import (
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
)

// Split returns a new routing table with the chunk whose min is chunkMin
// cut at points, as MongoDB's commitChunkSplit does: the pieces stay on
// the chunk's shard and take, in key order, the collection version with
// minor+1, +2, ... (so the collection and that shard's placement version
// grow by a minor per piece). Points must be keys of the pattern, strictly
// increasing and strictly inside the chunk: otherwise InvalidOptions (72)
// with MongoDB's messages, or BadValue (2) for an array or regex value. A
// chunkMin that starts no chunk is ConflictingOperationInProgress (117):
// the caller's routing table is stale.
func (m *ChunkManager) Split(chunkMin bson.D, points []bson.D) (*ChunkManager, error) {
	i, ok := m.chunkIndex(chunkMin)
	if !ok || key.Compare(m.chunks[i].Min, chunkMin) != 0 {
		return nil, inconsistent("no chunk of %s starts at %s", m.coll.NS, key.Format(chunkMin))
	}
	if len(points) == 0 {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "need to provide the split points")
	}
	pieces, err := m.splitPieces(m.chunks[i], points)
	if err != nil {
		return nil, err
	}
	chunks := slices.Concat(m.chunks[:i], pieces, m.chunks[i+1:])
	return New(m.coll, chunks)
}

func (m *ChunkManager) splitPieces(c Chunk, points []bson.D) ([]Chunk, error) {
	version := m.collVersion
	start := c.Min
	pieces := make([]Chunk, 0, len(points)+1)
	for _, end := range append(slices.Clone(points), c.Max) {
		if err := m.checkSplitPoint(c, start, end); err != nil {
			return nil, err
		}
		version = version.IncMinor()
		pieces = append(pieces, Chunk{Min: start, Max: end, Shard: c.Shard, Lastmod: version})
		start = end
	}
	return pieces, nil
}

func (m *ChunkManager) checkSplitPoint(c Chunk, start, end bson.D) error {
	if err := checkSplitKey(m.coll, end); err != nil {
		return err
	}
	switch {
	case key.Compare(end, c.Max) != 0 && !c.Contains(end):
		return mongoerr.New(mongoerr.InvalidOptions, "Split key %s not contained within chunk %s",
			key.Format(end), c.Range())
	case key.Compare(end, start) < 0:
		return mongoerr.New(mongoerr.InvalidOptions,
			"Split keys must be specified in strictly increasing order. Key %s was specified after %s.",
			key.Format(end), key.Format(start))
	case key.Compare(end, start) == 0:
		return mongoerr.New(mongoerr.InvalidOptions, "Split on lower bound of chunk [%s, %s] is not allowed",
			key.Format(start), key.Format(end))
	}
	return nil
}

// CheckSplitKey checks that k can be a split point of coll: the
// pattern's fields in order (InvalidOptions, 72) with values valid for
// storage (BadValue, 2), as Split checks each point.
func CheckSplitKey(coll Collection, k bson.D) error { return checkSplitKey(coll, k) }

// checkSplitKey checks a split point's shape (the pattern's fields in
// order) and its values (ShardKeyPattern::checkShardKeyIsValidForMetadataStorage).
func checkSplitKey(coll Collection, k bson.D) error {
	fields := coll.Key.Fields()
	if len(k) != len(fields) {
		return splitKeyNotValid(coll, k)
	}
	for i, f := range fields {
		if k[i].Key != f.Path {
			return splitKeyNotValid(coll, k)
		}
		if !validBoundValue(k[i].Value, f.Hashed) {
			return mongoerr.New(mongoerr.BadValue, "Shard key element %s: %s is not valid for storage",
				k[i].Key, key.FormatValue(k[i].Value))
		}
	}
	return nil
}

func splitKeyNotValid(coll Collection, k bson.D) error {
	return mongoerr.New(mongoerr.InvalidOptions, "Split key %s is not valid for collection %s with key pattern %s",
		key.Format(k), coll.NS, coll.Key)
}

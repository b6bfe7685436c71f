package routing

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/shard/key"
)

// checkChunks checks the package invariants over chunks sorted by min.
func checkChunks(coll Collection, chunks []Chunk) error {
	if len(chunks) == 0 {
		return inconsistent("collection %s has no chunks", coll.NS)
	}
	p := coll.Key
	if key.Compare(chunks[0].Min, p.GlobalMin()) != 0 {
		return inconsistent("routing table of %s starts at %s, not %s",
			coll.NS, key.Format(chunks[0].Min), key.Format(p.GlobalMin()))
	}
	if last := chunks[len(chunks)-1]; key.Compare(last.Max, p.GlobalMax()) != 0 {
		return inconsistent("routing table of %s ends at %s, not %s",
			coll.NS, key.Format(last.Max), key.Format(p.GlobalMax()))
	}
	for i, c := range chunks {
		if err := checkChunk(coll, c); err != nil {
			return err
		}
		if i > 0 {
			if err := checkContiguous(chunks[i-1], c); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkChunk(coll Collection, c Chunk) error {
	if err := checkBound(coll.Key, c.Min); err != nil {
		return err
	}
	if err := checkBound(coll.Key, c.Max); err != nil {
		return err
	}
	switch {
	case key.Compare(c.Min, c.Max) >= 0:
		return inconsistent("chunk %s of %s is empty", c.Range(), coll.NS)
	case c.Shard == "":
		return inconsistent("chunk %s of %s has no shard", c.Range(), coll.NS)
	case !c.Lastmod.IsSet():
		return inconsistent("chunk %s of %s has version 0|0", c.Range(), coll.NS)
	case c.Lastmod.Epoch != coll.Epoch || c.Lastmod.Timestamp != coll.Timestamp:
		return inconsistent("chunk %s of %s has version %s of another collection generation",
			c.Range(), coll.NS, c.Lastmod)
	}
	return nil
}

// checkBound checks that b is a key of p: p's fields in order, no array,
// and the hashed field an int64, MinKey or MaxKey.
func checkBound(p key.Pattern, b bson.D) error {
	if len(b) != p.Len() {
		return inconsistent("chunk bound %s is not a key of %s", key.Format(b), p)
	}
	for i, f := range p.Fields() {
		if b[i].Key != f.Path || !validBoundValue(b[i].Value, f.Hashed) {
			return inconsistent("chunk bound %s is not a key of %s", key.Format(b), p)
		}
	}
	return nil
}

// validBoundValue is ShardKeyPattern::isValidShardKeyElementForStorage
// (no array, no regex) plus isValidHashedValue for the hashed field.
func validBoundValue(v any, hashed bool) bool {
	switch v.(type) {
	case bson.A, []any, bson.Regex:
		return false
	case bson.MinKey, bson.MaxKey, int64:
		return true
	}
	return !hashed
}

func checkContiguous(prev, next Chunk) error {
	switch c := key.Compare(prev.Max, next.Min); {
	case c < 0:
		return inconsistent("Gap exists in the routing table between chunks %s and %s", prev.Range(), next.Range())
	case c > 0:
		return inconsistent("Overlap exists in the routing table between chunks %s and %s", prev.Range(), next.Range())
	}
	return nil
}

package routing

import (
	"math"
	"slices"
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/shard/key"
)

// maxFlattenedBounds caps the key ranges a filter expands to ($in on
// several fields multiplies); beyond it Target broadcasts, a superset.
// MongoDB refuses such queries at 4,000,000 (error 17439).
const maxFlattenedBounds = 100000

// keyRange is a closed range [lo, hi] of whole shard keys.
type keyRange struct{ lo, hi bson.D }

// Target returns the sorted ids of the shards that may own documents
// matching filter, and whether the filter's shard key bounds chose them.
// As MongoDB's getShardIdsForQuery, it turns the filter into per-field
// bounds on the shard key (equality and $in give points, $gt/$gte/$lt/
// $lte ranges; a hashed field uses only points, hashed), flattens them in
// key order into key ranges and returns the owners of the chunks those
// ranges touch, max inclusive. targeted is false when the filter does not
// constrain the key's first field: then every shard owning a chunk is
// returned. A top-level $or whose every branch (with the rest of the
// filter) is targeted targets the union of the branches. A filter no
// document can match targets the first chunk's shard (MongoDB's
// SERVER-4914 behaviour).
func (m *ChunkManager) Target(filter bson.D) (shards []string, targeted bool) {
	shards, targeted = m.target(filter)
	if len(shards) == 0 {
		return []string{m.chunks[0].Shard}, true
	}
	return shards, targeted
}

// target is Target, with no shards for a filter that matches nothing.
func (m *ChunkManager) target(filter bson.D) (shards []string, targeted bool) {
	if shards, ok := m.targetOr(filter); ok {
		return shards, true
	}
	fields, ok := m.keyBounds(filter)
	if !ok {
		return m.Shards(), false
	}
	ranges, ok := flatten(m.coll.Key, fields)
	if !ok {
		return m.Shards(), false
	}
	return m.shardsFor(ranges), true
}

// keyBounds returns the bounds of every key field; false when the first
// field is unconstrained.
func (m *ChunkManager) keyBounds(filter bson.D) ([]intervals, bool) {
	fields := m.coll.Key.Fields()
	out := make([]intervals, len(fields))
	for i, f := range fields {
		l, ok := fieldBounds(filter, f.Path)
		if ok && f.Hashed {
			l, ok = hashedBounds(l)
		}
		if !ok {
			if i == 0 {
				return nil, false
			}
			l = intervals{fullInterval}
		}
		out[i] = l
	}
	return out, true
}

// hashedBounds maps point bounds to the points of their hashes; a range
// says nothing about hashes.
func hashedBounds(l intervals) (intervals, bool) {
	if !l.isPoints() {
		return nil, false
	}
	var hashes []any
	for _, iv := range l {
		hs, ok := hashesOf(iv.lo)
		if !ok {
			return nil, false
		}
		hashes = append(hashes, hs...)
	}
	return points(hashes), true
}

// hashesOf returns the hashes of every value equal to v. Equal numbers of
// different types can hash apart: a double truncates (1.5 as 1) where a
// decimal rounds half to even (1.5 as 2), and the double 2^63 hashes as
// math.MinInt64 where larger values clamp to math.MaxInt64. MongoDB
// targets only v's own hash and so misses such documents; relaydb adds
// the others.
func hashesOf(v any) ([]any, bool) {
	h, err := key.Hash(v)
	if err != nil || nestedAmbiguous(v) {
		return nil, false
	}
	out := []any{h}
	f, isNum := bsonx.AsFloat64(v)
	if !isNum || math.IsNaN(f) {
		return out, true
	}
	for _, w := range []any{f, decimalInt64(f)} {
		if hw, err := key.Hash(w); err == nil {
			out = append(out, hw)
		}
	}
	return out, true
}

// nestedAmbiguous reports whether a document or array holds a number
// whose equal values hash apart (non-integral, or beyond ±2^63): the
// combinations are too many to enumerate, so such a value does not
// constrain a hashed field.
func nestedAmbiguous(v any) bool {
	switch x := v.(type) {
	case bson.D:
		return slices.ContainsFunc(x, func(e bson.E) bool { return ambiguous(e.Value) })
	case bson.A:
		return slices.ContainsFunc(x, ambiguous)
	case bson.CodeWithScope:
		return ambiguous(x.Scope)
	}
	return false
}

func ambiguous(v any) bool {
	if f, ok := bsonx.AsFloat64(v); ok {
		return f != math.Trunc(f) || math.Abs(f) >= 1<<63
	}
	return nestedAmbiguous(v)
}

// decimalInt64 is the int64 a decimal equal to f hashes as: rounded half
// to even, clamped.
func decimalInt64(f float64) int64 {
	switch r := math.RoundToEven(f); {
	case r >= 1<<63:
		return math.MaxInt64
	case r < -(1 << 63):
		return math.MinInt64
	default:
		return int64(r)
	}
}

// flatten is ShardKeyPattern::flattenBounds: leading single-point fields
// prefix every range; the first field with several intervals (or a range)
// multiplies the ranges; every later field only widens each range to its
// first interval's start and last interval's end. false if there would be
// more than maxFlattenedBounds ranges.
func flatten(p key.Pattern, fields []intervals) ([]keyRange, bool) {
	for _, l := range fields {
		if len(l) == 0 {
			return nil, true
		}
	}
	ranges := []keyRange{{}}
	equalityOnly := true
	for i, l := range fields {
		name := p.Fields()[i].Path
		if equalityOnly && (len(l) != 1 || !l.isPoints()) {
			equalityOnly = false
			if len(ranges)*len(l) > maxFlattenedBounds {
				return nil, false
			}
			ranges = multiply(ranges, l, name)
			continue
		}
		for j := range ranges {
			ranges[j] = extend(ranges[j], name, l[0].lo, l[len(l)-1].hi)
		}
	}
	return ranges, true
}

func multiply(ranges []keyRange, l intervals, name string) []keyRange {
	out := make([]keyRange, 0, len(ranges)*len(l))
	for _, r := range ranges {
		for _, iv := range l {
			out = append(out, extend(r, name, iv.lo, iv.hi))
		}
	}
	return out
}

func extend(r keyRange, name string, lo, hi any) keyRange {
	return keyRange{
		lo: append(slices.Clip(r.lo), bson.E{Key: name, Value: lo}),
		hi: append(slices.Clip(r.hi), bson.E{Key: name, Value: hi}),
	}
}

// shardsFor returns the sorted owners of the chunks meeting any range.
func (m *ChunkManager) shardsFor(ranges []keyRange) []string {
	seen := map[string]bool{}
	for _, r := range ranges {
		i := sort.Search(len(m.chunks), func(i int) bool { return key.Compare(r.lo, m.chunks[i].Max) < 0 })
		for ; i < len(m.chunks) && m.chunks[i].overlaps(r.lo, r.hi); i++ {
			seen[m.chunks[i].Shard] = true
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

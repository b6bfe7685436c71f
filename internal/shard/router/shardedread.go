package router

import (
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// readOnShards sends build(shard) to the shards the filter targets and
// returns their replies, resending after StaleConfig with a fresh table.
// A shard's other error is returned as is.
func (r *Router) readOnShards(c *call, ns string, cm *routing.ChunkManager, filter bson.D, build func(cm *routing.ChunkManager, shard string) bson.D) ([]shardReply, *routing.ChunkManager, error) {
	filter = c.targetable(filter)
	for attempt := 0; ; attempt++ {
		shards, _ := cm.Target(filter)
		replies := r.sendAll(c, shards, true, func(s string) bson.D { return build(cm, s) })
		stale := false
		for _, sr := range replies {
			if r.staleAt(sr) >= 0 {
				stale = true
			}
		}
		if !stale {
			for _, sr := range replies {
				if sr.err != nil && sr.reply == nil {
					return nil, cm, sr.err
				}
			}
			return replies, cm, nil
		}
		r.killCursorsOf(c, replies)
		var err error
		if cm, err = r.refreshAfterStale(c.ctx, ns, cm, attempt); err != nil {
			return nil, cm, err
		}
	}
}

// killCursorsOf closes the cursors some replies opened (the others failed).
func (r *Router) killCursorsOf(c *call, replies []shardReply) {
	coll, _ := c.cmd[0].Value.(string)
	for _, sr := range replies {
		if id := cursorID(sr.reply); id != 0 && sr.err == nil {
			_, _ = r.runOnCursorHost(c, cursorEntry{t: sr.t, host: sr.host},
				bson.D{{Key: "killCursors", Value: coll}, {Key: "cursors", Value: bson.A{id}}})
		}
	}
}

// firstError returns the first failed reply (an ok:0 reply is returned
// to the client unchanged, as a single shard's would be).
func firstError(replies []shardReply) (bson.D, bool) {
	for _, sr := range replies {
		if sr.err != nil {
			return sr.reply, true
		}
	}
	return nil, false
}

func docField(cmd bson.D, name string) bson.D {
	v, _ := bsonx.Get(cmd, name)
	d, _ := v.(bson.D)
	return d
}

// shardedFind targets the filter's shards: one shard's reply is returned
// as it is (its cursor pinned to its member); several become a router
// cursor merging their results in the sort order. Skip is applied by the
// router, limit pushed down as limit+skip.
func (r *Router) shardedFind(c *call, ns string, cm *routing.ChunkManager) (bson.D, error) {
	filter := docField(c.cmd, "filter")
	if shards, _ := cm.Target(c.targetable(filter)); len(shards) == 1 {
		reply, next, ok, err := r.singleShardRead(c, ns, cm, filter)
		if ok || err != nil {
			return reply, err
		}
		cm = next
	}
	sortSpec, textScore := textScoreMergeSort(docField(c.cmd, "sort"))
	if err := checkSortSpec(sortSpec); err != nil {
		return nil, err
	}
	skip := int64Field(c.cmd, "skip")
	limit := int64Field(c.cmd, "limit")
	bs, hasBS := bsonx.Get(c.cmd, "batchSize")
	batch, _ := bsonx.AsInt64(bs)
	if !hasBS {
		batch = defaultBatch
	}
	shardCmd := withoutField(withoutField(c.cmd, "skip"), "singleBatch")
	if limit > 0 {
		shardCmd = setField(shardCmd, "limit", limit+skip)
	}
	shardBatch := batch + skip
	if limit > 0 {
		shardBatch = min(shardBatch, limit+skip)
	}
	shardCmd = setField(shardCmd, "batchSize", shardBatch)
	var strip, keep []string
	near, keySpec := nearMerge(filter, sortSpec)
	if proj := docField(c.cmd, "projection"); len(proj) > 0 && len(keySpec) > 0 {
		p, s, k, err := sortProjection(proj, keySpec)
		if err != nil {
			return nil, err
		}
		shardCmd, strip, keep = setField(shardCmd, "projection", p), s, k
	}
	if textScore {
		shardCmd, strip = withTextScoreProjection(shardCmd, strip)
	}
	replies, _, err := r.readOnShards(c, ns, cm, filter, func(cm *routing.ChunkManager, s string) bson.D {
		return withVersion(shardCmd, cm, s)
	})
	if err != nil {
		return nil, err
	}
	if reply, failed := firstError(replies); failed {
		r.killCursorsOf(c, replies)
		return reply, nil
	}
	coll, _ := c.cmd[0].Value.(string)
	mc := &mergedCursor{ns: ns, coll: coll, strip: strip, keep: keep, skip: skip, limit: -1, collator: bsonColl(c.collator())}
	if len(sortSpec) > 0 {
		mc.sort = sortSpec
	}
	if near != nil {
		mc.sort, mc.near = keySpec, near
	}
	if limit > 0 {
		mc.limit = limit
	}
	for _, sr := range replies {
		mc.remotes = append(mc.remotes, &remote{t: sr.t, host: sr.host, id: cursorID(sr.reply), buf: firstBatch(sr.reply)})
	}
	return r.firstReply(c, mc, batch, truthy(c.cmd, "singleBatch"))
}

// singleShardRead sends a read the filter targets to one shard and
// returns its reply unchanged; a cursor it opens is pinned to the member.
// ok is false when a refreshed table targets several shards: the caller
// then scatters with next.
func (r *Router) singleShardRead(c *call, ns string, cm *routing.ChunkManager, filter bson.D) (reply bson.D, next *routing.ChunkManager, ok bool, err error) {
	replies, next, err := r.readOnShards(c, ns, cm, filter, func(cm *routing.ChunkManager, s string) bson.D {
		return withVersion(c.cmd, cm, s)
	})
	if err != nil {
		return nil, nil, true, err
	}
	if len(replies) > 1 {
		r.killCursorsOf(c, replies)
		return nil, next, false, nil
	}
	sr := replies[0]
	r.cursors.addFrom(sr.reply, sr.t, sr.host)
	return sr.reply, next, true, nil
}

// checkSortSpec refuses sorts the router cannot merge ($meta).
func checkSortSpec(sortSpec bson.D) error {
	for _, e := range sortSpec {
		if _, ok := bsonx.AsFloat64(e.Value); !ok {
			return mongoerr.New(mongoerr.CommandNotSupported,
				"the router cannot merge a sort on %s: %v across shards yet", e.Key, e.Value)
		}
	}
	return nil
}

// compareBySort orders two documents by a sort specification: each
// field's value (missing: null; an array: its smallest element ascending,
// its largest descending) in BSON order, reversed for -1.
func compareBySort(a, b bson.D, sortSpec bson.D) int { return compareBySortColl(a, b, sortSpec, nil) }

// compareBySortColl is compareBySort with strings ordered by coll.
func compareBySortColl(a, b bson.D, sortSpec bson.D, coll bsonx.Collator) int {
	for _, e := range sortSpec {
		dir, _ := bsonx.AsFloat64(e.Value)
		va, vb := sortValue(a, e.Key, dir < 0, coll), sortValue(b, e.Key, dir < 0, coll)
		if c := bsonx.CompareColl(va, vb, coll); c != 0 {
			if dir < 0 {
				return -c
			}
			return c
		}
	}
	return 0
}

func sortValue(doc bson.D, path string, desc bool, coll bsonx.Collator) any {
	var cur any = doc
	for _, part := range strings.Split(path, ".") {
		d, ok := cur.(bson.D)
		if !ok {
			return nil
		}
		if cur, ok = bsonx.Get(d, part); !ok {
			return nil
		}
	}
	if arr, ok := cur.(bson.A); ok {
		if len(arr) == 0 {
			return bson.Undefined{}
		}
		best := arr[0]
		for _, v := range arr[1:] {
			if c := bsonx.CompareColl(v, best, coll); (c < 0 && !desc) || (c > 0 && desc) {
				best = v
			}
		}
		return best
	}
	return cur
}

// sortProjection returns the projection to send to the shards so that
// their documents still carry the sort fields, the paths to remove again
// at the router, and the paths the client's projection includes.
// An inclusion projection gets the sort paths it does not cover; an
// exclusion projection loses the exclusions of sort paths. A computed
// field ($slice, $elemMatch, an expression) on a sort path is refused.
func sortProjection(proj, sortSpec bson.D) (bson.D, []string, []string, error) {
	related := func(a, b string) bool { return isPrefixPath(a, b) || isPrefixPath(b, a) }
	inclusion := false
	var included []string
	for _, e := range proj {
		switch v := e.Value.(type) {
		case bool:
			if v {
				inclusion = inclusion || e.Key != "_id"
				included = append(included, e.Key)
			}
		default:
			if f, ok := bsonx.AsFloat64(v); ok {
				if f != 0 {
					inclusion = inclusion || e.Key != "_id"
					included = append(included, e.Key)
				}
				continue
			}
			inclusion = inclusion || e.Key != "_id"
			for _, s := range sortSpec {
				if related(e.Key, s.Key) {
					return nil, nil, nil, mongoerr.New(mongoerr.CommandNotSupported,
						"the router cannot merge a sort on %s with a computed projection of %s across shards yet", s.Key, e.Key)
				}
			}
		}
	}
	out := slices.Clone(proj)
	var strip []string
	if inclusion {
		for _, s := range sortSpec {
			covered := slices.ContainsFunc(included, func(q string) bool { return isPrefixPath(q, s.Key) })
			if s.Key == "_id" || strings.HasPrefix(s.Key, "_id.") {
				// _id is included unless excluded.
				if i := slices.IndexFunc(out, func(e bson.E) bool { return e.Key == "_id" }); i >= 0 && !slices.Contains(included, "_id") {
					out = slices.Delete(out, i, i+1)
					strip = append(strip, "_id")
				}
				continue
			}
			if !covered {
				out = append(out, bson.E{Key: s.Key, Value: int32(1)})
				strip = append(strip, s.Key)
			}
		}
		return out, strip, included, nil
	}
	out = slices.DeleteFunc(out, func(e bson.E) bool {
		for _, s := range sortSpec {
			if related(e.Key, s.Key) {
				strip = append(strip, e.Key)
				return true
			}
		}
		return false
	})
	return out, strip, nil, nil
}

// stripPaths removes paths from doc (a copy when something is removed),
// and then parents left empty that no kept path lies under.
func stripPaths(doc bson.D, paths, keep []string) bson.D {
	for _, p := range paths {
		doc = removePath(doc, p, "", keep)
	}
	return doc
}

func removePath(doc bson.D, path, prefix string, keep []string) bson.D {
	head, rest, nested := strings.Cut(path, ".")
	i := slices.IndexFunc(doc, func(e bson.E) bool { return e.Key == head })
	if i < 0 {
		return doc
	}
	out := slices.Clone(doc)
	if !nested {
		return slices.Delete(out, i, i+1)
	}
	sub, ok := out[i].Value.(bson.D)
	if !ok {
		return doc
	}
	full := prefix + head
	sub = removePath(sub, rest, full+".", keep)
	if len(sub) == 0 && !slices.ContainsFunc(keep, func(k string) bool { return isPrefixPath(full, k) }) {
		return slices.Delete(out, i, i+1)
	}
	out[i].Value = sub
	return out
}

// shardedCount sums the targeted shards' counts; with skip or limit on
// several shards each shard counts up to limit+skip and the router
// applies them to the sum.
func (r *Router) shardedCount(c *call, ns string, cm *routing.ChunkManager) (bson.D, error) {
	filter := docField(c.cmd, "query")
	skip, limit := int64Field(c.cmd, "skip"), int64Field(c.cmd, "limit")
	if limit < 0 {
		limit = -limit
	}
	shardCmd := withoutField(c.cmd, "skip")
	if limit > 0 {
		shardCmd = setField(shardCmd, "limit", limit+skip)
	}
	replies, _, err := r.readOnShards(c, ns, cm, filter, func(cm *routing.ChunkManager, s string) bson.D {
		return withVersion(shardCmd, cm, s)
	})
	if err != nil {
		return nil, err
	}
	if reply, failed := firstError(replies); failed {
		return reply, nil
	}
	var n int64
	for _, sr := range replies {
		n += int64Field(sr.reply, "n")
	}
	n = max(n-skip, 0)
	if limit > 0 {
		n = min(n, limit)
	}
	return bson.D{{Key: "n", Value: int32(n)}, {Key: "ok", Value: 1.0}}, nil
}

// shardedDistinct returns the union of the targeted shards' values,
// sorted and without duplicates (BSON equality).
// distinctCap is MongoDB's limit on a distinct reply's values.
const distinctCap = 16 << 20

func (r *Router) shardedDistinct(c *call, ns string, cm *routing.ChunkManager) (bson.D, error) {
	filter := docField(c.cmd, "query")
	replies, _, err := r.readOnShards(c, ns, cm, filter, func(cm *routing.ChunkManager, s string) bson.D {
		return withVersion(c.cmd, cm, s)
	})
	if err != nil {
		return nil, err
	}
	if reply, failed := firstError(replies); failed {
		return reply, nil
	}
	var all bson.A
	for _, sr := range replies {
		v, _ := bsonx.Get(sr.reply, "values")
		arr, _ := v.(bson.A)
		all = append(all, arr...)
	}
	coll := bsonColl(c.collator())
	slices.SortStableFunc(all, func(a, b any) int { return bsonx.CompareColl(a, b, coll) })
	all = slices.CompactFunc(all, func(a, b any) bool { return bsonx.CompareColl(a, b, coll) == 0 })
	// Each shard's answer is under 16 MB; their union must be too (one
	// reply document), as MongoDB's distinct caps it.
	if n, err := bsonx.Encode(bson.D{{Key: "values", Value: all}}); err != nil || len(n) > distinctCap {
		return nil, mongoerr.New(mongoerr.DistinctTooBig, "distinct too big, 16mb cap")
	}
	if all == nil {
		all = bson.A{}
	}
	return bson.D{{Key: "values", Value: all}, {Key: "ok", Value: 1.0}}, nil
}

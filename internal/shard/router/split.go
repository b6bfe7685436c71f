package router

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// split is mongos' {split: "db.c", middle | find | bounds} (sh.splitAt
// sends middle, sh.splitFind find). middle splits the chunk holding it at
// that key; find splits the chunk holding the query's shard key, bounds
// the chunk [min, max) exactly, both at the median key of the chunk's
// documents, asked of the owning shard (a count, then a find sorted by
// the key skipping to the middle). The pieces and their versions come
// from routing.ChunkManager.Split (commitChunkSplit's checks and minor
// bumps); configsvr.Catalog.CommitChunkSplit writes them. MongoDB does
// not change config.collections on a split, nor does this. The router's
// cache is reloaded and the owning shard told the new placement version.
//
// The argument errors (none or several of middle/find/bounds, a middle
// that is not a key of the pattern or a bound of its chunk) are
// InvalidOptions (72) with mongos' messages; mongos itself answers them
// with an errmsg and no code.
func split(c *call) (bson.D, error) {
	if err := c.useMetadataWriteConcern(); err != nil {
		return nil, err
	}
	ns, _ := c.cmd[0].Value.(string)
	dbName, collName, ok := strings.Cut(ns, ".")
	if !ok || dbName == "" || collName == "" {
		return nil, mongoerr.New(mongoerr.InvalidNamespace, "Invalid namespace specified '%s'", ns)
	}
	var given []string
	for _, f := range []string{"find", "bounds", "middle"} {
		if _, has := bsonx.Get(c.cmd, f); has {
			given = append(given, f)
		}
	}
	switch {
	case len(given) == 0:
		return nil, mongoerr.New(mongoerr.InvalidOptions, "need to specify find/bounds or middle")
	case len(given) > 1:
		return nil, mongoerr.New(mongoerr.InvalidOptions, "cannot specify bounds, find, or middle together")
	}
	c.r.catalog.invalidate(ns) // split against what the config servers say now
	cm, err := c.r.catalog.get(c.ctx, ns)
	if err != nil {
		return nil, err
	}
	if cm == nil {
		return nil, mongoerr.New(mongoerr.NamespaceNotSharded, "ns [%s] is not sharded.", ns)
	}
	p := cm.Pattern()
	onDB := &call{r: c.r, conn: c.conn, db: dbName, cmd: bson.D{{Key: "split", Value: ns}}, name: c.name, ctx: c.ctx}

	var chunk routing.Chunk
	var point bson.D
	switch given[0] {
	case "middle":
		v, _ := bsonx.Get(c.cmd, "middle")
		d, isDoc := v.(bson.D)
		if !isDoc {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'split.middle' is the wrong type '%s', expected type 'object'", typeName(v))
		}
		k, ok := p.Normalize(d)
		if !ok || len(d) != p.Len() {
			return nil, mongoerr.New(mongoerr.InvalidOptions, "new split key %s is not valid for shard key pattern %s", key.Format(d), p)
		}
		if err := routing.CheckSplitKey(cm.Collection(), k); err != nil {
			return nil, err
		}
		if chunk, err = cm.FindChunk(k); err != nil { // only all-MaxKey lies in no chunk
			return nil, mongoerr.New(mongoerr.InvalidOptions, "new split key %s is a boundary key of existing chunk %s",
				key.Format(k), cm.Chunks()[len(cm.Chunks())-1].Range())
		}
		if key.Compare(k, chunk.Min) == 0 {
			return nil, mongoerr.New(mongoerr.InvalidOptions, "new split key %s is a boundary key of existing chunk %s",
				key.Format(k), chunk.Range())
		}
		point = k
	case "find":
		v, _ := bsonx.Get(c.cmd, "find")
		q, isDoc := v.(bson.D)
		if !isDoc {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'split.find' is the wrong type '%s', expected type 'object'", typeName(v))
		}
		k, ok := routing.ShardKeyFromFilter(p, q)
		if !ok {
			return nil, mongoerr.New(mongoerr.ShardKeyNotFound, "no shard key found in chunk query %s", key.Format(q))
		}
		if chunk, err = cm.FindChunk(k); err != nil {
			return nil, err
		}
		if point, err = c.r.medianKey(onDB, cm, chunk); err != nil {
			return nil, err
		}
	case "bounds":
		v, _ := bsonx.Get(c.cmd, "bounds")
		arr, _ := v.(bson.A)
		var lo, hi bson.D
		if len(arr) == 2 {
			lo, _ = arr[0].(bson.D)
			hi, _ = arr[1].(bson.D)
		}
		if lo == nil || hi == nil {
			return nil, mongoerr.New(mongoerr.InvalidOptions, "bounds must be an array of two shard key documents: [min, max]")
		}
		nlo, okLo := p.Normalize(lo)
		nhi, okHi := p.Normalize(hi)
		if !okLo || !okHi || len(lo) != p.Len() || len(hi) != p.Len() {
			return nil, mongoerr.New(mongoerr.InvalidOptions, "shard key bounds [%s,%s) are not valid for shard key pattern %s", key.Format(lo), key.Format(hi), p)
		}
		chunk, err = cm.FindChunk(nlo)
		if err != nil || key.Compare(chunk.Min, nlo) != 0 || key.Compare(chunk.Max, nhi) != 0 {
			return nil, mongoerr.New(mongoerr.InvalidOptions, "no chunk found with the shard key bounds [%s, %s)", key.Format(nlo), key.Format(nhi))
		}
		if point, err = c.r.medianKey(onDB, cm, chunk); err != nil {
			return nil, err
		}
	}

	if _, err := c.r.splitAt(onDB, cm, chunk, point); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}

// splitAt splits chunk of cm at point, commits the pieces on the config
// servers and returns the reloaded routing table.
func (r *Router) splitAt(onDB *call, cm *routing.ChunkManager, chunk routing.Chunk, point bson.D) (*routing.ChunkManager, error) {
	next, err := cm.Split(chunk.Min, []bson.D{point})
	if err != nil {
		return nil, err
	}
	var pieces []routing.Chunk
	for _, ch := range next.Chunks() {
		if chunk.Contains(ch.Min) {
			pieces = append(pieces, ch)
		}
	}
	if err := r.meta.CommitChunkSplit(onDB.ctx, cm.Collection(), chunk, pieces); err != nil {
		return nil, err
	}
	ns := cm.Collection().NS
	r.catalog.invalidate(ns)
	now, err := r.catalog.get(onDB.ctx, ns)
	if err == nil && now != nil {
		// A minor bump is write-compatible (same major): the shard serves
		// requests of either version and refreshes when it next finds a
		// mismatch; this versioned read is what shardCollection sends.
		dbName, collName, _ := strings.Cut(ns, ".")
		r.refreshShards(onDB, []string{chunk.Shard}, dbName, collName, now.PlacementVersion)
	}
	r.log.Info("split chunk", "ns", ns, "chunk", chunk.Range(), "at", key.Format(point), "shard", chunk.Shard)
	return now, err
}

// splitChunk is the shard-side command MongoDB's routers send to the
// chunk's owner; a mongos does not have it (CommandNotFound, 59). relaydb
// routers commit splits themselves (split).
func splitChunk(c *call) (bson.D, error) {
	return nil, mongoerr.New(mongoerr.CommandNotFound, "no such command: '%s'", c.name)
}

// medianKey asks chunk's shard for the shard key of the chunk's median
// document: a count of the chunk's documents, then a find sorted by the
// key skipping half of them. A median equal to the chunk's min (many
// documents share it) is replaced by the next greater key; none (fewer
// than 2 distinct keys) is CannotSplit (106). Hashed keys are refused:
// relaydb's shards have no hashed index to scan.
func (r *Router) medianKey(c *call, cm *routing.ChunkManager, chunk routing.Chunk) (bson.D, error) {
	p := cm.Pattern()
	if p.IsHashed() {
		return nil, mongoerr.New(mongoerr.CannotSplit, "splitting a chunk of the hashed shard key %s at its median is not supported yet: give middle", p)
	}
	coll := strings.SplitN(cm.Collection().NS, ".", 2)[1]
	filter := chunkFilter(p, chunk.Min, false, chunk.Max)
	sr := r.send(c, chunk.Shard, withVersion(bson.D{{Key: "count", Value: coll}, {Key: "query", Value: filter}}, cm, chunk.Shard), true)
	if sr.err != nil {
		return nil, sr.err
	}
	n := int64Field(sr.reply, "n")
	sortDoc := bson.D{}
	proj := bson.D{{Key: "_id", Value: int32(0)}}
	for _, f := range p.Fields() {
		sortDoc = append(sortDoc, bson.E{Key: f.Path, Value: int32(1)})
		proj = append(proj, bson.E{Key: f.Path, Value: int32(1)})
	}
	keyAt := func(filter bson.D, skip int64) (bson.D, bool, error) {
		sr := r.send(c, chunk.Shard, withVersion(bson.D{
			{Key: "find", Value: coll}, {Key: "filter", Value: filter}, {Key: "sort", Value: sortDoc},
			{Key: "projection", Value: proj}, {Key: "skip", Value: skip}, {Key: "limit", Value: int64(1)},
			{Key: "singleBatch", Value: true},
		}, cm, chunk.Shard), true)
		if sr.err != nil {
			return nil, false, sr.err
		}
		docs := firstBatch(sr.reply)
		if len(docs) == 0 {
			return nil, false, nil
		}
		k, err := p.Extract(docs[0])
		return k, err == nil, err
	}
	cannot := mongoerr.New(mongoerr.CannotSplit, "Unable to find median in chunk %s, possibly because chunk is indivisible.", chunk.Range())
	if n < 2 {
		return nil, cannot
	}
	k, found, err := keyAt(filter, n/2)
	if err != nil {
		return nil, err
	}
	if found && key.Compare(k, chunk.Min) != 0 {
		return k, nil
	}
	k, found, err = keyAt(chunkFilter(p, chunk.Min, true, chunk.Max), 0)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, cannot
	}
	return k, nil
}

// chunkFilter matches the documents whose shard key k (a range key: the
// fields' values, null when missing) lies in lo <= k < hi, or lo < k < hi
// with strictLo, in key order: lexicographic over the pattern's fields.
// MinKey and MaxKey bounds make their comparisons always or never true.
func chunkFilter(p key.Pattern, lo bson.D, strictLo bool, hi bson.D) bson.D {
	return bson.D{{Key: "$and", Value: bson.A{
		lexFilter(p, lo, "$gt", !strictLo),
		lexFilter(p, hi, "$lt", false),
	}}}
}

// lexFilter is k op b lexicographically (op "$gt" or "$lt"), or k == b
// too with orEqual: the $or over i of (k_j == b_j for j < i, k_i op b_i).
func lexFilter(p key.Pattern, b bson.D, op string, orEqual bool) bson.D {
	var clauses bson.A
	var eqs bson.D
	possible := true // the equalities so far can hold
	for i, f := range p.Fields() {
		if !possible {
			break
		}
		v := b[i].Value
		always, never := false, false
		switch v.(type) {
		case bson.MinKey:
			always, never = op == "$gt", op == "$lt"
			possible = false // no value equals MinKey
		case bson.MaxKey:
			always, never = op == "$lt", op == "$gt"
			possible = false
		}
		switch {
		case always:
			clauses = append(clauses, andOf(eqs))
		case !never:
			clauses = append(clauses, andOf(append(clone(eqs), bson.E{Key: f.Path, Value: bson.D{{Key: op, Value: v}}})))
		}
		eqs = append(eqs, bson.E{Key: f.Path, Value: bson.D{{Key: "$eq", Value: v}}})
	}
	if orEqual && possible {
		clauses = append(clauses, andOf(eqs))
	}
	if len(clauses) == 0 {
		return bson.D{{Key: "$expr", Value: false}}
	}
	return bson.D{{Key: "$or", Value: clauses}}
}

func andOf(eqs bson.D) bson.D {
	if len(eqs) == 0 {
		return bson.D{}
	}
	return bson.D{{Key: "$and", Value: toA(eqs)}}
}

func toA(d bson.D) bson.A {
	out := make(bson.A, len(d))
	for i, e := range d {
		out[i] = bson.D{e}
	}
	return out
}

func clone(d bson.D) bson.D { return append(bson.D(nil), d...) }

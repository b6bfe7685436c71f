package command

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/shardsvr"
)

const (
	// maxSplitKeys bounds one reply; more is continuation: true (MongoDB
	// stops at the 16 MB reply size).
	maxSplitKeys = 8192
	// splitScanBatch is the batch size of the key scan.
	splitScanBatch = 1000
	// maxSplitScanBatches bounds the scan of one request.
	maxSplitScanBatches = 1 << 20
)

// autoSplitVector is MongoDB's autoSplitVector: the keys cutting [min,
// max) of the collection into pieces of about maxChunkSizeBytes, found by
// scanning the range in shard key order and starting a piece at the key
// after each maxChunkSizeBytes / avgObjSize documents (a cut falls only
// between two different keys: one key's documents stay together, so a
// piece of a single key may be larger). At most limit keys (and maxSplitKeys,
// then continuation is true). A range smaller than the size gives none;
// a collection that does not exist gives none. A hashed key's range is
// walked in hash order through the hashed index (shardsvr.ScanKeyOrder);
// without that index it is InvalidOptions.
// With no key, relaydb adds rangeDataSize (the range's documents times
// avgObjSize): the balancer tells a small range from a jumbo one (a
// single key larger than the size) by it.
// TODO(#14): MongoDB also moves the last cut back when the last piece
// would be much smaller than the others; relaydb leaves it small.
func autoSplitVector(c *Ctx, r *request.AutoSplitVector) (bson.D, error) {
	p, lo, hi, limit, err := splitVectorArgs(r)
	if err != nil {
		return nil, err
	}
	col := c.D.eng.Catalog().Collection(c.DB, string(r.Collection))
	empty := bson.D{{Key: "splitKeys", Value: bson.A{}}, {Key: "continuation", Value: false}, {Key: "rangeDataSize", Value: int64(0)}}
	if col == nil || col.Count() == 0 {
		return empty, nil
	}
	avg := max(1, col.DataSize()/col.Count())
	s := splitScan{p: p, lo: lo, hi: hi, maxDocs: max(1, r.MaxChunkSizeBytes/avg), limit: limit, keys: bson.A{}}
	ctx, cancel := c.replContext()
	defer cancel()
	if p.IsHashed() {
		ok, err := shardsvr.ScanKeyOrder(col, p, lo, hi, func(d bson.D) bool { return !s.add([]bson.D{d}) && ctx.Err() == nil })
		if err == nil && !ok {
			err = mongoerr.New(mongoerr.InvalidOptions, "autoSplitVector: %s has no hashed index of %s to walk", col.NS(), p)
		}
		if err != nil {
			return nil, err
		}
	} else if err := s.run(ctx, c, string(r.Collection)); err != nil {
		return nil, err
	}
	out := bson.D{{Key: "splitKeys", Value: s.keys}, {Key: "continuation", Value: s.continuation}}
	if len(s.keys) == 0 { // the scan covered the range: relaydb tells its size
		out = append(out, bson.E{Key: "rangeDataSize", Value: s.n * avg})
	}
	return out, nil
}

func splitVectorArgs(r *request.AutoSplitVector) (p key.Pattern, lo, hi bson.D, limit int, err error) {
	if p, err = key.Parse(r.KeyPattern); err != nil {
		return p, nil, nil, 0, mongoerr.New(mongoerr.InvalidOptions, "autoSplitVector keyPattern %s: %v", key.Format(r.KeyPattern), err)
	}
	var okLo, okHi bool
	lo, okLo = p.Normalize(r.Min)
	hi, okHi = p.Normalize(r.Max)
	if !okLo || !okHi || key.Compare(lo, hi) >= 0 {
		return p, nil, nil, 0, mongoerr.New(mongoerr.InvalidOptions, "autoSplitVector range [%s, %s) is not a range of %s", key.Format(r.Min), key.Format(r.Max), p)
	}
	if r.MaxChunkSizeBytes <= 0 {
		return p, nil, nil, 0, mongoerr.New(mongoerr.BadValue, "maxChunkSizeBytes must be positive, not %d", r.MaxChunkSizeBytes)
	}
	if r.Limit != nil {
		if *r.Limit <= 0 {
			return p, nil, nil, 0, mongoerr.New(mongoerr.BadValue, "limit must be positive, not %d", *r.Limit)
		}
		limit = int(min(*r.Limit, maxSplitKeys))
	}
	return p, lo, hi, limit, nil
}

// splitScan is one autoSplitVector's walk over [lo, hi) in key order.
type splitScan struct {
	p            key.Pattern
	lo, hi       bson.D
	prev         bson.D // the key of the previous document in range
	maxDocs      int64
	limit        int   // 0: up to maxSplitKeys, then continuation
	n            int64 // documents in the piece since last
	keys         bson.A
	continuation bool
}

// run reads the range in batches (a find sorted by the key, bounded on
// the key's first field; the exact bounds are checked here) until it
// ends or enough keys are found.
func (s *splitScan) run(ctx context.Context, c *Ctx, coll string) error {
	reply, err := localRunner{d: c.D}.Run(ctx, c.DB, s.find(coll))
	for range maxSplitScanBatches {
		if err != nil {
			return err
		}
		done := s.add(replyBatch(reply))
		id := replyCursorID(reply)
		if done || id == 0 {
			if id != 0 {
				_, _ = localRunner{d: c.D}.Run(ctx, c.DB, bson.D{{Key: "killCursors", Value: coll}, {Key: "cursors", Value: bson.A{id}}})
			}
			return nil
		}
		reply, err = localRunner{d: c.D}.Run(ctx, c.DB, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: coll}, {Key: "batchSize", Value: int64(splitScanBatch)}})
	}
	return mongoerr.New(mongoerr.ExceededTimeLimit, "autoSplitVector: more than %d batches", maxSplitScanBatches)
}

func (s *splitScan) find(coll string) bson.D {
	sortDoc, proj := bson.D{}, bson.D{{Key: "_id", Value: int32(0)}}
	for _, f := range s.p.Fields() {
		sortDoc = append(sortDoc, bson.E{Key: f.Path, Value: int32(1)})
		proj = append(proj, bson.E{Key: f.Path, Value: int32(1)})
	}
	first := bson.D{}
	if _, isMin := s.lo[0].Value.(bson.MinKey); !isMin {
		first = append(first, bson.E{Key: "$gte", Value: s.lo[0].Value})
	}
	if _, isMax := s.hi[0].Value.(bson.MaxKey); !isMax {
		first = append(first, bson.E{Key: "$lte", Value: s.hi[0].Value})
	}
	filter := bson.D{}
	if len(first) > 0 {
		filter = bson.D{{Key: s.p.Fields()[0].Path, Value: first}}
	}
	return bson.D{
		{Key: "find", Value: coll}, {Key: "filter", Value: filter}, {Key: "sort", Value: sortDoc},
		{Key: "projection", Value: proj}, {Key: "batchSize", Value: int64(splitScanBatch)},
	}
}

// add counts a batch's documents and cuts a piece at the first new key
// after maxDocs of them; true when no more keys are wanted.
func (s *splitScan) add(batch []bson.D) bool {
	for _, d := range batch {
		k, err := s.p.Extract(d)
		if err != nil || key.Compare(k, s.lo) < 0 || key.Compare(k, s.hi) >= 0 {
			continue
		}
		atNewKey := s.prev != nil && key.Compare(k, s.prev) > 0
		s.prev = k
		s.n++ // counts k's document
		if s.n <= s.maxDocs || !atNewKey {
			continue // a cut falls between two different keys only
		}
		if len(s.keys) == maxSplitKeys {
			s.continuation = true
			return true
		}
		s.keys = append(s.keys, k)
		s.n = 1
		if s.limit > 0 && len(s.keys) >= s.limit {
			return true
		}
	}
	return false
}

// replyCursorID is a cursor reply's cursor id.
func replyCursorID(reply bson.D) int64 {
	cur, _ := bsonx.Get(reply, "cursor")
	cd, _ := cur.(bson.D)
	v, _ := bsonx.Get(cd, "id")
	id, _ := bsonx.AsInt64(v)
	return id
}

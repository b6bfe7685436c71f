package exec

import (
	"go.mongodb.org/mongo-driver/v2/bson"
)

// OwnershipFilter is a shard's per-request decision of which documents it
// owns (MongoDB's ShardFilterer behind the SHARDING_FILTER stage): a
// versioned read on a shard sees only the documents whose shard key falls
// in a chunk the shard owns, so orphans (left by a migration or written
// straight to the shard) never reach a router's result. The dispatcher
// passes one in FindParams.Owned, AggregateParams.Owned, to CountAt and
// DistinctAt, and in UpdateStmt.Owned, DeleteStmt.Owned and
// FindAndModifyParams.Owned (versioned writes skip orphans too) when a
// shard version check passed for a sharded collection; nil (a direct
// connection, an unsharded collection) sees every document.
//
// $lookup and $unionWith of a sharded collection never read it here: the
// router runs them in its merge part with finds through itself, which
// are versioned and so filtered (the engine's own lookup source is used
// only for pipelines naming no sharded collection).
//
// Invariants: the filter sits right above the document source and the
// query filter, before sort, skip and limit, so limits count only owned
// documents; it keeps no state across documents (bounded memory); a count
// with an ownership filter takes the collection's document count only
// less the unowned documents (UnownedCounter), else it scans.
//
// A row not decoded yet (a find without a query filter passes the stored
// bytes on) is decided from its bytes when the filter is a RawOwner, so
// the filter does not decode it either.
//
// Explain shows the stage (SHARDING_FILTER) for finds, counts, distinct,
// writes and aggregates: a router explains an aggregate as {explain:
// {aggregate}}, whose plan is the leading $match's.
type OwnershipFilter interface {
	// Owns reports whether doc's shard key is in a chunk this shard owns.
	// An error (a document that has no valid shard key) ends the read.
	Owns(doc bson.D) (bool, error)
}

// RawOwner is an OwnershipFilter that also decides from a document's
// stored bytes, decoding only its shard key.
type RawOwner interface {
	OwnsRaw(raw bson.Raw) (bool, error)
}

// ownedIter keeps the rows an OwnershipFilter owns.
type ownedIter struct {
	in  Iterator
	own OwnershipFilter
	err error
}

// withOwned wraps it in the ownership filter own (none when nil).
func withOwned(it Iterator, own OwnershipFilter) Iterator {
	if own == nil {
		return it
	}
	return &ownedIter{in: it, own: own}
}

func (o *ownedIter) Next() (*Row, bool) {
	for o.err == nil {
		r, ok := o.in.Next()
		if !ok {
			return nil, false
		}
		owned, err := o.owns(r)
		if err != nil {
			o.err = err
			return nil, false
		}
		if owned {
			return r, true
		}
	}
	return nil, false
}

// owns decides r from its bytes when it is not decoded and the filter
// can, else from its decoded document.
func (o *ownedIter) owns(r *Row) (bool, error) {
	if ro, ok := o.own.(RawOwner); ok && r.Doc == nil && r.Raw != nil {
		return ro.OwnsRaw(r.Raw)
	}
	d, err := r.decoded()
	if err != nil {
		return false, err
	}
	return o.own.Owns(d)
}

func (o *ownedIter) Err() error   { return errOr(o.err, o.in) }
func (o *ownedIter) Close() error { return o.in.Close() }

// shardingFilterStage is explain's SHARDING_FILTER stage over input
// (MongoDB's name), when the find ran with an ownership filter.
func shardingFilterStage(input bson.D, own OwnershipFilter) bson.D {
	if own == nil {
		return input
	}
	return bson.D{{Key: "stage", Value: "SHARDING_FILTER"}, {Key: "inputStage", Value: input}}
}

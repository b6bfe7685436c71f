package shardsvr

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/shard/key"
)

// RangeResumer is a RangeStore that finds a range's documents in shard
// key order (EngineRangeStore through the shard key index), so a task's
// next batch can start where the last one ended instead of stepping again
// over what it deleted (their storage tombstones): emptying a range costs
// O(range), not O(range^2 / batch).
type RangeResumer interface {
	// DeleteBatchFrom is DeleteBatch of [from, hi); last is the greatest
	// shard key it deleted, nil when it found the documents in no key
	// order (the collection-scan fallback).
	DeleteBatchFrom(ctx context.Context, ns string, p key.Pattern, from, hi bson.D, n int) (deleted int, last bson.D, err error)
}

// deleteBatch runs one batch of t, from *cur (nil: t.Min) when the store
// resumes. A batch from a resume point that finds nothing is followed by
// a last pass from t.Min (a document written behind the cursor meanwhile,
// such as a migration's clone retried); the range is done when a batch
// from t.Min finds nothing.
func (r *RangeDeleter) deleteBatch(ctx context.Context, t RangeTask, p key.Pattern, cur *bson.D) (n int, done bool, err error) {
	rs, ok := r.opts.Store.(RangeResumer)
	if !ok {
		n, err = r.opts.Store.DeleteBatch(ctx, t.NS, p, t.Min, t.Max, batchLimit())
		return n, err == nil && n == 0, err
	}
	from := *cur
	if from == nil {
		from = t.Min
	}
	n, last, err := rs.DeleteBatchFrom(ctx, t.NS, p, from, t.Max, batchLimit())
	switch {
	case err != nil:
		return 0, false, err
	case n > 0:
		if last != nil {
			*cur = last
		}
		return n, false, nil
	case key.Compare(from, t.Min) == 0:
		return 0, true, nil
	default:
		*cur = nil
		return 0, false, nil
	}
}

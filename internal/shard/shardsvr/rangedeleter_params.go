package shardsvr

import (
	"math"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// The range deleter's server parameters, with MongoDB 7's names and
// defaults, settable at runtime with setParameter (process-wide, as in
// mongod):
//   - rangeDeleterBatchSize (2147483647): documents deleted per batch;
//     relaydb deletes at most maxBatchIDs per batch whatever it is set
//     to, so a batch's memory is bounded.
//   - rangeDeleterBatchDelayMS (20): pause between two batches.
//   - orphanCleanupDelaySecs (900): how long a "delayed" task waits after
//     it was scheduled (queries still running on the old routing table).
var rangeParams struct {
	batchSize    atomic.Int64
	batchDelayMS atomic.Int64
	delaySecs    atomic.Int64
}

// maxBatchIDs caps one batch's _ids held in memory.
const maxBatchIDs = 1000

func init() {
	rangeParams.batchSize.Store(math.MaxInt32)
	rangeParams.batchDelayMS.Store(20)
	rangeParams.delaySecs.Store(900)
}

// RangeDeleterParameters are the parameters getParameter reports.
func RangeDeleterParameters() bson.D {
	return bson.D{
		{Key: "rangeDeleterBatchSize", Value: int32(rangeParams.batchSize.Load())},
		{Key: "rangeDeleterBatchDelayMS", Value: int32(rangeParams.batchDelayMS.Load())},
		{Key: "orphanCleanupDelaySecs", Value: int32(rangeParams.delaySecs.Load())},
	}
}

// SetRangeDeleterParameter sets one of them, returning the old value;
// found is false for any other name. Values must be integers in MongoDB's
// bounds (batch size >= 1, the others >= 0).
func SetRangeDeleterParameter(name string, v any) (old any, found bool, err error) {
	p, lowest := rangeParam(name)
	if p == nil {
		return nil, false, nil
	}
	n, ok := bsonx.AsInt64(v)
	if !ok || n < lowest || n > math.MaxInt32 {
		return nil, true, mongoerr.New(mongoerr.BadValue, "%s must be an integer between %d and %d", name, lowest, math.MaxInt32)
	}
	return int32(p.Swap(n)), true, nil
}

func rangeParam(name string) (*atomic.Int64, int64) {
	switch name {
	case "rangeDeleterBatchSize":
		return &rangeParams.batchSize, 1
	case "rangeDeleterBatchDelayMS":
		return &rangeParams.batchDelayMS, 0
	case "orphanCleanupDelaySecs":
		return &rangeParams.delaySecs, 0
	}
	return nil, 0
}

// batchLimit is this batch's size: the parameter, capped by maxBatchIDs.
func batchLimit() int {
	return int(min(rangeParams.batchSize.Load(), maxBatchIDs))
}

func batchDelay() time.Duration {
	return time.Duration(rangeParams.batchDelayMS.Load()) * time.Millisecond
}

func cleanupDelay() time.Duration {
	return time.Duration(rangeParams.delaySecs.Load()) * time.Second
}

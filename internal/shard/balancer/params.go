package balancer

import (
	"math"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// roundIntervalMS is the server parameter balancerRoundIntervalMS
// (relaydb's; MongoDB's balancer sleeps 10 s between rounds): the pause
// between two rounds, settable at runtime with setParameter on the config
// server members (process-wide) so tests can balance quickly.
var roundIntervalMS atomic.Int64

func init() { roundIntervalMS.Store(DefaultRoundInterval.Milliseconds()) }

// RoundInterval is the current balancerRoundIntervalMS.
func RoundInterval() time.Duration { return time.Duration(roundIntervalMS.Load()) * time.Millisecond }

// Parameters are the parameters getParameter reports.
func Parameters() bson.D {
	return bson.D{{Key: "balancerRoundIntervalMS", Value: int32(roundIntervalMS.Load())}}
}

// SetParameter sets balancerRoundIntervalMS (an integer from 1 to
// 2^31-1), returning the old value; found is false for any other name.
func SetParameter(name string, v any) (old any, found bool, err error) {
	if name != "balancerRoundIntervalMS" {
		return nil, false, nil
	}
	n, ok := bsonx.AsInt64(v)
	if !ok || n < 1 || n > math.MaxInt32 {
		return nil, true, mongoerr.New(mongoerr.BadValue, "balancerRoundIntervalMS must be an integer between 1 and %d", math.MaxInt32)
	}
	return int32(roundIntervalMS.Swap(n)), true, nil
}

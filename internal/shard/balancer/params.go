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

// loadWindowMS is the server parameter loadSampleWindowMS (relaydb's),
// set on shards: the window over which a shard counts a collection's
// operations per second and samples their keys for load splitting.
var loadWindowMS atomic.Int64

// DefaultLoadWindow is loadSampleWindowMS's default.
const DefaultLoadWindow = 10 * time.Second

func init() {
	roundIntervalMS.Store(DefaultRoundInterval.Milliseconds())
	loadWindowMS.Store(DefaultLoadWindow.Milliseconds())
}

// LoadWindow is the current loadSampleWindowMS.
func LoadWindow() time.Duration { return time.Duration(loadWindowMS.Load()) * time.Millisecond }

// RoundInterval is the current balancerRoundIntervalMS.
func RoundInterval() time.Duration { return time.Duration(roundIntervalMS.Load()) * time.Millisecond }

// Parameters are the parameters getParameter reports.
func Parameters() bson.D {
	return bson.D{
		{Key: "balancerRoundIntervalMS", Value: int32(roundIntervalMS.Load())},
		{Key: "loadSampleWindowMS", Value: int32(loadWindowMS.Load())},
	}
}

// SetParameter sets balancerRoundIntervalMS or loadSampleWindowMS (an
// integer from 1 to 2^31-1), returning the old value; found is false for
// any other name.
func SetParameter(name string, v any) (old any, found bool, err error) {
	var p *atomic.Int64
	switch name {
	case "balancerRoundIntervalMS":
		p = &roundIntervalMS
	case "loadSampleWindowMS":
		p = &loadWindowMS
	default:
		return nil, false, nil
	}
	n, ok := bsonx.AsInt64(v)
	if !ok || n < 1 || n > math.MaxInt32 {
		return nil, true, mongoerr.New(mongoerr.BadValue, "%s must be an integer between 1 and %d", name, math.MaxInt32)
	}
	return int32(p.Swap(n)), true, nil
}

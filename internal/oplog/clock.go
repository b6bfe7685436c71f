package oplog

import (
	"math"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// nextTS returns the timestamp following last at wall time now: seconds from
// the wall clock, the increment counting within a second. It never goes
// backwards: a wall clock behind last keeps last's seconds.
func nextTS(last bson.Timestamp, now time.Time) bson.Timestamp {
	secs := now.Unix()
	if secs < 0 {
		secs = 0
	}
	if secs > math.MaxUint32 {
		secs = math.MaxUint32
	}
	if uint32(secs) > last.T {
		return bson.Timestamp{T: uint32(secs), I: 1}
	}
	if last.I == math.MaxUint32 {
		return bson.Timestamp{T: last.T + 1, I: 1}
	}
	return bson.Timestamp{T: last.T, I: last.I + 1}
}

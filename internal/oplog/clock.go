package oplog

import (
	"fmt"
	"math"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// nextTS returns the timestamp following last at wall time now: seconds from
// the wall clock, the increment counting within a second. It never goes
// backwards: a wall clock behind last keeps last's seconds.
func nextTS(last bson.Timestamp, now time.Time) bson.Timestamp {
	if secs := wallSecs(now); secs > last.T {
		return bson.Timestamp{T: secs, I: 1}
	}
	if last.I == math.MaxUint32 {
		return bson.Timestamp{T: last.T + 1, I: 1}
	}
	return bson.Timestamp{T: last.T, I: last.I + 1}
}

// MaxClockDriftSecs is MongoDB's maxAcceptableLogicalClockDriftSecs
// default (365 days): how far ahead of this node's wall clock a gossiped
// cluster time may be.
const MaxClockDriftSecs = 365 * 24 * 60 * 60

// ClockDriftError is AdvanceClusterTime's refusal of a cluster time too far
// ahead of the wall clock (MongoDB's ClusterTimeFailsRateLimiter).
type ClockDriftError struct {
	New      bson.Timestamp // the refused cluster time
	WallSecs uint32         // this node's wall clock, in seconds
}

func (e *ClockDriftError) Error() string {
	return fmt.Sprintf("oplog: cluster time %d is more than the acceptable drift ahead of the wall clock %d", e.New.T, e.WallSecs)
}

// AdvanceClusterTime raises the node's cluster time to ts when ts is newer:
// every timestamp Reserve allocates from now on is after ts. A ts whose
// seconds are more than maxDriftSecs ahead of the wall clock is refused
// with a *ClockDriftError and changes nothing (MongoDB's rate limiter: a
// client cannot push the clock arbitrarily far).
func (l *Log) AdvanceClusterTime(ts bson.Timestamp, maxDriftSecs uint32) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	wall := wallSecs(l.now())
	if ts.T > wall && ts.T-wall > maxDriftSecs {
		return &ClockDriftError{New: ts, WallSecs: wall}
	}
	if ts.After(l.mu.floor) {
		l.mu.floor = ts
	}
	return nil
}

// ClusterTime returns the node's cluster time: the newest of the last
// allocated timestamp and the highest cluster time it has been gossiped.
func (l *Log) ClusterTime() bson.Timestamp {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mu.floor.After(l.mu.last) {
		return l.mu.floor
	}
	return l.mu.last
}

// wallSecs is now in seconds, clamped to a timestamp's range.
func wallSecs(now time.Time) uint32 {
	secs := now.Unix()
	if secs < 0 {
		secs = 0
	}
	if secs > math.MaxUint32 {
		secs = math.MaxUint32
	}
	return uint32(secs)
}

package command

// Cluster time gossip (MongoDB's vector clock, its clusterTime component).
//
// A replica-set member keeps a cluster time: the newest of its own oplog
// timestamps and every $clusterTime a request brought (drivers and
// routers gossip the newest they have seen). A request's $clusterTime
// newer than the member's advances it before the command runs, so every
// later write on this member (a causal read's no-op included) gets a
// timestamp after it: a session that wrote on another replica set (a
// shard) and reads here with afterClusterTime is answered promptly.
// Replies gossip the member's cluster time back in $clusterTime.
//
// A $clusterTime more than maxAcceptableLogicalClockDriftSecs (365 days,
// MongoDB's default) ahead of this member's wall clock is refused with
// ClusterTimeFailsRateLimiter and changes nothing. Signatures are not
// checked: relaydb has no keys (MongoDB does not check them either
// without authentication). A standalone keeps no cluster time and
// ignores $clusterTime, as MongoDB's.

import (
	"errors"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/oplog"
)

// parseClusterTime returns the clusterTime of cmd's $clusterTime
// {clusterTime: Timestamp, signature: {...}}; ok is false without one.
func parseClusterTime(cmd bson.D) (ts bson.Timestamp, ok bool, err error) {
	v, present := bsonx.Get(cmd, "$clusterTime")
	if !present {
		return ts, false, nil
	}
	doc, isDoc := v.(bson.D)
	if !isDoc {
		return ts, false, wrongType("$clusterTime", v, "object")
	}
	ct, has := bsonx.Get(doc, "clusterTime")
	if !has {
		return ts, false, mongoerr.New(mongoerr.NoSuchKey, "Missing expected field \"clusterTime\"")
	}
	if ts, err = timestampField("clusterTime", ct); err != nil {
		return ts, false, err
	}
	return ts, true, nil
}

// gossipIn advances this member's cluster time to the request's
// $clusterTime when it is newer (see the package comment above).
func (d *Dispatcher) gossipIn(cmd bson.D) error {
	if d.repl == nil {
		return nil
	}
	ts, ok, err := parseClusterTime(cmd)
	if err != nil || !ok {
		return err
	}
	return advanceClusterTime(d.eng.Catalog().Oplog(), ts)
}

// advanceClusterTime raises log's cluster time to ts, mapping a refusal
// to MongoDB's error.
func advanceClusterTime(log *oplog.Log, ts bson.Timestamp) error {
	err := log.AdvanceClusterTime(ts, oplog.MaxClockDriftSecs)
	var de *oplog.ClockDriftError
	if errors.As(err, &de) {
		return mongoerr.New(mongoerr.ClusterTimeFailsRateLimiter,
			"New clusterTime, %d, is too far from this node's wall clock time, %d.", de.New.T, de.WallSecs)
	}
	return err
}

package command

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/oplog"
)

func gossipOf(ts bson.Timestamp) bson.E {
	return bson.E{Key: "$clusterTime", Value: bson.D{{Key: "clusterTime", Value: ts},
		{Key: "signature", Value: bson.D{{Key: "hash", Value: bson.Binary{Data: make([]byte, 20)}}, {Key: "keyId", Value: int64(0)}}}}}
}

func TestParseClusterTime(t *testing.T) {
	ts := bson.Timestamp{T: 10, I: 3}
	tests := []struct {
		name string
		cmd  bson.D
		ok   bool
		code mongoerr.Code
	}{
		{"absent", bson.D{{Key: "ping", Value: 1}}, false, 0},
		{"signed", bson.D{{Key: "ping", Value: 1}, gossipOf(ts)}, true, 0},
		{"unsigned", bson.D{{Key: "ping", Value: 1}, {Key: "$clusterTime", Value: bson.D{{Key: "clusterTime", Value: ts}}}}, true, 0},
		{"not a document", bson.D{{Key: "ping", Value: 1}, {Key: "$clusterTime", Value: ts}}, false, mongoerr.TypeMismatch},
		{"no clusterTime", bson.D{{Key: "ping", Value: 1}, {Key: "$clusterTime", Value: bson.D{{Key: "signature", Value: bson.D{}}}}}, false, mongoerr.NoSuchKey},
		{"clusterTime type", bson.D{{Key: "ping", Value: 1}, {Key: "$clusterTime", Value: bson.D{{Key: "clusterTime", Value: int64(10)}}}}, false, mongoerr.TypeMismatch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := parseClusterTime(tc.cmd)
			if codeOf(err) != tc.code || ok != tc.ok {
				t.Fatalf("got %v %v %v, want ok %v code %d", got, ok, err, tc.ok, tc.code)
			}
			if ok && got != ts {
				t.Fatalf("clusterTime %v, want %v", got, ts)
			}
		})
	}
}

// TestGossipAdvancesClusterTime: a request's $clusterTime ahead of this
// member's clock advances it: the reply gossips it back, the next write
// gets a later timestamp; an older one changes nothing.
func TestGossipAdvancesClusterTime(t *testing.T) {
	d, cat, coll := newReadTestDispatcher(t, &staleRepl{fakeRepl{primary: true}})
	top, _ := cat.Oplog().Top()
	future := bson.Timestamp{T: top.T + 30, I: 7}
	reply, err := runRead(d, findWith(rcLocalDoc, gossipOf(future)))
	if err != nil {
		t.Fatal(err)
	}
	ct, _ := bsonx.Get(reply, "$clusterTime")
	if v, _ := bsonx.Get(ct.(bson.D), "clusterTime"); v != future {
		t.Fatalf("reply $clusterTime %v, want the gossiped %v", v, future)
	}
	if op, _ := bsonx.Get(reply, "operationTime"); op != top {
		t.Fatalf("operationTime %v, want the oplog top %v (gossip is no operation)", op, top)
	}
	if _, err := runRead(d, findWith(rcLocalDoc, gossipOf(bson.Timestamp{T: 1, I: 1}))); err != nil {
		t.Fatal(err)
	}
	w, err := cat.Insert(coll, bson.D{{Key: "_id", Value: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if w.TS != (bson.Timestamp{T: future.T, I: future.I + 1}) {
		t.Fatalf("write after gossip of %v at %v", future, w.TS)
	}
}

// TestGossipTooFarAhead: a $clusterTime more than
// maxAcceptableLogicalClockDriftSecs ahead of the wall clock fails the
// command with ClusterTimeFailsRateLimiter and leaves the clock alone.
func TestGossipTooFarAhead(t *testing.T) {
	d, cat, coll := newReadTestDispatcher(t, &fakeRepl{primary: true})
	far := bson.Timestamp{T: uint32(time.Now().Unix()) + oplog.MaxClockDriftSecs + 3600, I: 1}
	_, err := runRead(d, findWith(rcLocalDoc, gossipOf(far)))
	if codeOf(err) != mongoerr.ClusterTimeFailsRateLimiter || mongoerr.ClusterTimeFailsRateLimiter != 205 {
		t.Fatalf("gossip of %v: %v, want ClusterTimeFailsRateLimiter (205)", far, err)
	}
	if me := mongoerr.From(err); me.Code.Name() != "ClusterTimeFailsRateLimiter" {
		t.Fatalf("codeName %q", me.Code.Name())
	}
	w, err := cat.Insert(coll, bson.D{{Key: "_id", Value: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if !w.TS.Before(far) || cat.Oplog().ClusterTime().After(w.TS) {
		t.Fatalf("a refused $clusterTime moved the clock: write at %v, cluster time %v", w.TS, cat.Oplog().ClusterTime())
	}
}

// TestGossipIgnoredOnStandalone: a standalone keeps no cluster time (as
// MongoDB's): $clusterTime, even far ahead, changes nothing.
func TestGossipIgnoredOnStandalone(t *testing.T) {
	d, cat, coll := newReadTestDispatcher(t, nil)
	far := bson.Timestamp{T: uint32(time.Now().Unix()) + oplog.MaxClockDriftSecs + 3600, I: 1}
	if _, err := runRead(d, findWith(rcLocalDoc, gossipOf(far))); err != nil {
		t.Fatal(err)
	}
	w, err := cat.Insert(coll, bson.D{{Key: "_id", Value: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if !w.TS.Before(bson.Timestamp{T: uint32(time.Now().Unix()) + 60}) {
		t.Fatalf("a standalone's write at %v after gossip of %v", w.TS, far)
	}
}

// TestAfterClusterTimeAheadOfClockAnswered: a primary whose clock is
// behind a causal read's afterClusterTime (learned from another replica
// set, gossiped with it) answers promptly: its no-op is after that time.
func TestAfterClusterTimeAheadOfClockAnswered(t *testing.T) {
	d, cat, _ := newReadTestDispatcher(t, &fakeRepl{primary: true})
	top, _ := cat.Oplog().Top()
	after := bson.Timestamp{T: top.T + 30, I: 200}
	rc := bson.D{{Key: "level", Value: "local"}, {Key: "afterClusterTime", Value: after}}
	start := time.Now()
	if _, err := runRead(d, findWith(rc, gossipOf(after), bson.E{Key: "maxTimeMS", Value: int32(5000)})); err != nil {
		t.Fatalf("afterClusterTime %v ahead of the clock (top %v): %v after %v", after, top, err, time.Since(start))
	}
	if top, _ := cat.Oplog().Top(); !top.After(after) {
		t.Fatalf("oplog top %v after the read, want after %v", top, after)
	}
	// Without gossip the time is unknown here: refused, as MongoDB's.
	later := bson.Timestamp{T: after.T + 30, I: 1}
	rc = bson.D{{Key: "afterClusterTime", Value: later}}
	if _, err := runRead(d, findWith(rc)); codeOf(err) != mongoerr.InvalidOptions {
		t.Fatalf("afterClusterTime %v beyond the cluster time: %v", later, err)
	}
}

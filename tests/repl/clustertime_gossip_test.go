package repl

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/cluster"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Issue #11: a data node advances its cluster time to a gossiped
// $clusterTime (MongoDB's vector clock), so a causally consistent session
// that writes on one replica set and then reads with afterClusterTime on
// another, whose clock is behind, is answered promptly: the no-op write
// the second set's primary makes for the read (and every later write)
// gets a timestamp greater than the one awaited.

// gossipWait bounds each read: far longer than a no-op write takes, far
// shorter than the 30 s a wall clock needs to catch up with the future
// cluster time the test gossips.
const gossipWait = 10 * time.Second

// rawCommandCtx is rawCommand bounded by ctx instead of a fixed 5 s.
func rawCommandCtx(ctx context.Context, addr string, cmd bson.D) (bson.Raw, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	return roundTrip(conn, cmd)
}

// replyTS returns the reply's operationTime or $clusterTime.clusterTime.
func replyTS(t *testing.T, r bson.Raw, path ...string) bson.Timestamp {
	t.Helper()
	tv, ti, ok := r.Lookup(path...).TimestampOK()
	if !ok {
		t.Fatalf("reply has no %v: %v", path, r)
	}
	return bson.Timestamp{T: tv, I: ti}
}

// causalRead runs find on host with readConcern {level, afterClusterTime:
// after} and $clusterTime gossip, bounded by gossipWait; it fails t unless
// the read answers ok in time, and returns the reply.
func causalRead(t *testing.T, host, level string, after, gossipTS bson.Timestamp) bson.Raw {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), gossipWait)
	defer cancel()
	start := time.Now()
	r, err := rawCommandCtx(ctx, host, bson.D{{Key: "find", Value: "ct"},
		{Key: "readConcern", Value: bson.D{{Key: "level", Value: level}, {Key: "afterClusterTime", Value: after}}},
		gossip(gossipTS), {Key: "$db", Value: "repl_ct"}})
	if err != nil {
		t.Fatalf("find with readConcern {level: %s, afterClusterTime: %v} on the set whose clock is behind: "+
			"no answer after %v (the read waits for a time this set never reaches): %v",
			level, after, time.Since(start).Round(time.Millisecond), err)
	}
	if ok, code, name := replyCode(r); ok != 1 {
		t.Fatalf("find with afterClusterTime %v (%s): error %d %s: %v", after, level, code, name, r)
	}
	return r
}

func TestClusterTimeGossipAdvancesClock(t *testing.T) {
	type set struct {
		c *cluster.Cluster
		p *cluster.Member
	}
	up := func(name string) set {
		c := upSet(t, cluster.Spec{Name: name, Data: 1})
		return set{c, primary(t, c, 20*time.Second)}
	}
	a, b := up("rsA"), up("rsB")
	// The collection exists on B (the reads below find nothing either way).
	insertOn(t, b.p.Host, bson.A{bson.D{{Key: "_id", Value: "b0"}}})

	t.Run("written on another set", func(t *testing.T) {
		// 200 writes in one batch push A's increment within the second
		// well past anything B has; B's next timestamp (now, 1) is below
		// it whenever the wall clock has not ticked since.
		docs := bson.A{}
		for i := 0; i < 200; i++ {
			docs = append(docs, bson.D{{Key: "_id", Value: i}})
		}
		r := insertOn(t, a.p.Host, docs)
		ta := replyTS(t, r, "operationTime")
		ct := replyTS(t, r, "$clusterTime", "clusterTime")
		for _, level := range []string{"local", "majority"} {
			causalRead(t, b.p.Host, level, ta, ct)
		}
		w := insertOn(t, b.p.Host, bson.A{bson.D{{Key: "_id", Value: "after-a"}}})
		if tb := replyTS(t, w, "operationTime"); !tb.After(ta) {
			t.Fatalf("a write on B after reading at A's time %v got %v, not after it", ta, tb)
		}
	})

	t.Run("future cluster time", func(t *testing.T) {
		// A cluster time 30 s ahead of the wall clock (within MongoDB's
		// maxAcceptableLogicalClockDriftSecs): without the clock advance,
		// B's no-op gets the current second and the read waits 30 s.
		future := bson.Timestamp{T: uint32(time.Now().Unix()) + 30, I: 5}
		for _, level := range []string{"local", "majority"} {
			r := causalRead(t, b.p.Host, level, future, future)
			if got := replyTS(t, r, "$clusterTime", "clusterTime"); got.Before(future) {
				t.Fatalf("reply $clusterTime %v is behind the gossiped %v", got, future)
			}
		}
		w := insertOn(t, b.p.Host, bson.A{bson.D{{Key: "_id", Value: "after-future"}}})
		if tb := replyTS(t, w, "operationTime"); !tb.After(future) {
			t.Fatalf("a write on B after gossip of %v got %v, not after it", future, tb)
		}
	})

	t.Run("too far ahead", func(t *testing.T) {
		// More than 365 days ahead: ClusterTimeFailsRateLimiter (205), and
		// the clock does not move.
		far := bson.Timestamp{T: uint32(time.Now().Unix()) + 366*24*3600, I: 1}
		ctx, cancel := context.WithTimeout(context.Background(), gossipWait)
		defer cancel()
		r, err := rawCommandCtx(ctx, a.p.Host, bson.D{{Key: "ping", Value: 1}, gossip(far), {Key: "$db", Value: "admin"}})
		if err != nil {
			t.Fatal(err)
		}
		if ok, code, name := replyCode(r); ok != 0 || code != 205 || name != "ClusterTimeFailsRateLimiter" {
			t.Fatalf("ping with $clusterTime %v: ok %v code %d %s, want ClusterTimeFailsRateLimiter: %v", far, ok, code, name, r)
		}
		w := insertOn(t, a.p.Host, bson.A{bson.D{{Key: "_id", Value: "after-far"}}})
		if tb := replyTS(t, w, "operationTime"); !tb.Before(far) {
			t.Fatalf("a rejected $clusterTime %v moved the clock: write at %v", far, tb)
		}
	})
}

// insertOn inserts docs into repl_ct.ct on host at w:1 and returns the reply.
func insertOn(t *testing.T, host string, docs bson.A) bson.Raw {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), gossipWait)
	defer cancel()
	r, err := rawCommandCtx(ctx, host, bson.D{{Key: "insert", Value: "ct"}, {Key: "documents", Value: docs},
		{Key: "writeConcern", Value: bson.D{{Key: "w", Value: int32(1)}}}, {Key: "$db", Value: "repl_ct"}})
	if err != nil {
		t.Fatalf("insert on %s: %v", host, err)
	}
	if ok, code, name := replyCode(r); ok != 1 {
		t.Fatalf("insert on %s: %d %s: %v", host, code, name, r)
	}
	if n, _ := r.Lookup("n").AsInt64OK(); n != int64(len(docs)) {
		t.Fatalf("insert on %s: n %d, want %d: %v", host, n, len(docs), r)
	}
	return r
}

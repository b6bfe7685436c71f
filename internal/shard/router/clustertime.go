package router

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// The router gossips cluster time as mongos does: it keeps the newest
// $clusterTime any shard or config server reply carried and adds it to the
// replies of the commands it answers itself (hello, ping, ...), so a
// driver always has one to send. Forwarded replies keep the shard's own.

// observeClusterTime keeps reply's $clusterTime when it is newer.
func (r *Router) observeClusterTime(reply bson.D) {
	v, ok := bsonx.Get(reply, "$clusterTime")
	if !ok {
		return
	}
	doc, _ := v.(bson.D)
	ts, ok := clusterTimeOf(doc)
	if !ok {
		return
	}
	r.ctMu.Lock()
	defer r.ctMu.Unlock()
	if cur, known := clusterTimeOf(r.clusterTime); !known || ts.After(cur) {
		r.clusterTime = doc
	}
}

// observeClusterTimeRaw is observeClusterTime for an undecoded reply: it
// decodes the $clusterTime document only when it is newer.
func (r *Router) observeClusterTimeRaw(reply bson.Raw) {
	doc, ok := reply.Lookup("$clusterTime").DocumentOK()
	if !ok {
		return
	}
	t, i, ok := doc.Lookup("clusterTime").TimestampOK()
	if !ok {
		return
	}
	ts := bson.Timestamp{T: t, I: i}
	r.ctMu.Lock()
	cur, known := clusterTimeOf(r.clusterTime)
	r.ctMu.Unlock()
	if known && !ts.After(cur) {
		return
	}
	d, err := bsonx.Decode(doc)
	if err != nil {
		return
	}
	r.observeClusterTime(bson.D{{Key: "$clusterTime", Value: d}})
}

// gossipRaw appends the router's $clusterTime to an undecoded reply.
func (r *Router) gossipRaw(reply bson.Raw) []byte {
	r.ctMu.Lock()
	ct := r.clusterTime
	r.ctMu.Unlock()
	if ct == nil {
		return reply
	}
	elems, err := encodeElems(bson.D{{Key: "$clusterTime", Value: ct}})
	if err != nil {
		return reply
	}
	return appendElems(nil, reply, elems)
}

// gossip appends the router's $clusterTime to a reply it built.
func (r *Router) gossip(reply bson.D) bson.D {
	r.ctMu.Lock()
	ct := r.clusterTime
	r.ctMu.Unlock()
	if ct == nil {
		return reply
	}
	return append(reply, bson.E{Key: "$clusterTime", Value: ct})
}

func clusterTimeOf(doc bson.D) (bson.Timestamp, bool) {
	v, ok := bsonx.Get(doc, "clusterTime")
	ts, isTS := v.(bson.Timestamp)
	return ts, ok && isTS
}

// learnClusterTime asks the config servers for a cluster time until one
// answers (or the router closes), so even a router's first replies gossip
// one.
func (r *Router) learnClusterTime() {
	wait := 100 * time.Millisecond
	for {
		ctx, cancel := context.WithTimeout(r.ctx, discoverTimeout)
		reply, err := r.cfg.Run(ctx, "admin", bson.D{{Key: "ping", Value: int32(1)}}, true)
		cancel()
		if err == nil {
			r.observeClusterTime(reply)
			return
		}
		select {
		case <-r.ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

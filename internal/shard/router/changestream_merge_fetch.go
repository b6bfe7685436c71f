package router

import (
	"context"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// streamFirstReply answers the aggregate with what the shards' first
// batches allow at once and registers the router cursor.
func (r *Router) streamFirstReply(mc *mergedCursor, n int64) bson.D {
	m := mc.stream
	docs := m.take(n)
	r.merged.add(mc)
	return r.streamReply(mc, "firstBatch", docs)
}

// streamBatchSize is the aggregate's cursor.batchSize (-1: a full
// batch); the cursor option is required, as on mongod.
func streamBatchSize(cmd bson.D) (int64, error) {
	cur, ok := bsonx.Get(cmd, "cursor")
	cd, isDoc := cur.(bson.D)
	if !ok || !isDoc {
		return 0, mongoerr.New(mongoerr.FailedToParse, "The 'cursor' option is required, except for aggregate with the explain argument")
	}
	v, ok := bsonx.Get(cd, "batchSize")
	if !ok {
		return -1, nil
	}
	n, isNum := bsonx.AsInt64(v)
	if !isNum || n < 0 {
		return 0, mongoerr.New(mongoerr.BadValue, "cursor.batchSize must be a non-negative number")
	}
	return n, nil
}

// streamReply is a cursor reply with the merged postBatchResumeToken.
func (r *Router) streamReply(mc *mergedCursor, field string, docs []bson.D) bson.D {
	reply := cursorReply(mc.ns, mc.id, field, docs)
	cd := reply[0].Value.(bson.D)
	reply[0].Value = append(cd, bson.E{Key: "postBatchResumeToken", Value: mc.stream.resume.doc()})
	return r.gossip(reply)
}

// streamGetMore serves getMore on a merged stream: it returns the events
// every shard has passed, asking the shards for more (and nudging idle
// ones) until there is one or the await time (maxAwaitTimeMS, default
// 1 s) is over.
func (r *Router) streamGetMore(c *call, mc *mergedCursor, n int64) (bson.D, error) {
	m := mc.stream
	await := defaultAwait
	if v, ok := bsonx.Get(c.cmd, "maxAwaitTimeMS"); ok {
		if ms, _ := bsonx.AsInt64(v); ms >= 0 {
			await = time.Duration(ms) * time.Millisecond
		}
	}
	deadline := time.Now().Add(await)
	var docs []bson.D
	for round := 0; round < maxRounds; round++ {
		if err := r.addNewShards(c, mc); err != nil {
			r.killStreamShards(c, mc)
			r.merged.remove(mc.id)
			return nil, err
		}
		if docs = m.take(n); len(docs) > 0 || m.done || !m.anyLive() {
			break
		}
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		if err := r.pollShards(c, mc, min(left, pollAwait)); err != nil {
			r.killStreamShards(c, mc)
			r.merged.remove(mc.id)
			return nil, streamError(err) // changestream_merge_errors.go
		}
	}
	id := mc.id
	if m.done || (!m.anyLive() && m.head() == nil) { // nothing follows an invalidate
		r.killStreamShards(c, mc)
		r.merged.remove(mc.id)
		id = 0
	}
	reply := r.streamReply(mc, "nextBatch", docs)
	if id == 0 {
		reply[0].Value.(bson.D)[0].Value = int64(0)
	}
	return reply, nil
}

func (m *csMerge) anyLive() bool {
	for _, s := range m.shards {
		if s.live() {
			return true
		}
	}
	return false
}

// pollShards asks the live shards with nothing buffered for their next
// events, in parallel, each waiting at most await; shards blocking the
// next buffered event are nudged first.
func (r *Router) pollShards(c *call, mc *mergedCursor, await time.Duration) error {
	m := mc.stream
	var need []*csShard
	for _, s := range m.shards {
		if s.live() && len(s.buf) == 0 {
			need = append(need, s)
		}
	}
	if h := m.head(); h != nil {
		need = m.blockers(h.buf[0].tok) // the others cannot unblock it
		r.nudge(c, need, h.buf[0].tok.TS)
		// A shard's getMore that finds only no-ops still waits out its
		// await; a short one reports the nudged mark at once.
		await = min(await, blockedAwait)
	}
	errs := make([]error, len(need))
	var wg sync.WaitGroup
	for i, s := range need {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = r.shardStreamGetMore(c, mc, s, await)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// shardStreamGetMore fetches a shard's next events.
func (r *Router) shardStreamGetMore(c *call, mc *mergedCursor, s *csShard, await time.Duration) error {
	cmd := bson.D{{Key: "getMore", Value: s.cursor}, {Key: "collection", Value: mc.coll},
		{Key: "batchSize", Value: int32(shardBatch)}, {Key: "maxTimeMS", Value: max(int64(await/time.Millisecond), 1)}}
	reply, err := r.runOnCursorHost(c, cursorEntry{t: s.t, host: s.host}, cmd)
	if err != nil {
		return err
	}
	r.observeClusterTime(reply)
	cur, _ := bsonx.Get(reply, "cursor")
	if cd, ok := cur.(bson.D); ok {
		// a getMore's batch is nextBatch: absorb reads it as firstBatch
		for i := range cd {
			if cd[i].Key == "nextBatch" {
				cd[i].Key = "firstBatch"
			}
		}
	}
	return s.absorb(reply)
}

// nudge makes idle shards' primaries write a no-op after ts: a read with
// afterClusterTime ts (and $clusterTime ts, so the shard knows that time)
// has a primary behind it write one (readconcern.go's noopIfAhead). Each
// shard at most every nudgeEvery; errors are ignored (the next poll
// retries).
func (r *Router) nudge(c *call, shards []*csShard, ts bson.Timestamp) {
	now := time.Now()
	var wg sync.WaitGroup
	for _, s := range shards {
		if now.Sub(s.nudged) < nudgeEvery {
			continue
		}
		s.nudged = now
		cmd := bson.D{{Key: "find", Value: "system.version"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: "changeStreamNudge"}}},
			{Key: "limit", Value: int32(1)}, {Key: "singleBatch", Value: true},
			{Key: "readConcern", Value: bson.D{{Key: "level", Value: "local"}, {Key: "afterClusterTime", Value: ts}}},
			{Key: "maxTimeMS", Value: int32(nudgeEvery / time.Millisecond)},
			{Key: "$clusterTime", Value: clusterTimeDoc(ts)}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, _ = s.t.set.RunOnPrimary(c.ctx, "admin", cmd, true)
		}()
	}
	wg.Wait()
}

// killStreamShards closes the shards' cursors of a merged stream.
func (r *Router) killStreamShards(c *call, mc *mergedCursor) {
	for _, s := range mc.stream.shards {
		if s.cursor == 0 {
			continue
		}
		cmd := bson.D{{Key: "killCursors", Value: mc.coll}, {Key: "cursors", Value: bson.A{s.cursor}}}
		_, _ = r.runOnCursorHost(c, cursorEntry{t: s.t, host: s.host}, cmd)
		s.cursor, s.buf = 0, nil
	}
}

// closeIdleStream closes the shards' cursors of a stream reaped idle
// (mergedCursors.add), bounded by keyLookupTimeout.
func (mc *mergedCursor) closeIdleStream() {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), keyLookupTimeout)
	defer cancel()
	db, _, _ := strings.Cut(mc.ns, ".")
	mc.stream.r.killStreamShards(&call{r: mc.stream.r, db: db, ctx: ctx, name: "killCursors"}, mc)
}

// latestClusterTime is the newest cluster time the router has seen.
func (r *Router) latestClusterTime() (bson.Timestamp, bool) {
	r.ctMu.Lock()
	defer r.ctMu.Unlock()
	return clusterTimeOf(r.clusterTime)
}

// withClusterTime adds the router's cluster time to cmd, so the shard's
// later writes are after it (the stream's start is just after it).
func (r *Router) withClusterTime(cmd bson.D) bson.D {
	if ts, ok := r.latestClusterTime(); ok {
		cmd = append(cmd, bson.E{Key: "$clusterTime", Value: clusterTimeDoc(ts)})
	}
	return cmd
}

func clusterTimeDoc(ts bson.Timestamp) bson.D {
	return bson.D{{Key: "clusterTime", Value: ts}, {Key: "signature", Value: bson.D{
		{Key: "hash", Value: bson.Binary{Data: make([]byte, 20)}}, {Key: "keyId", Value: int64(0)}}}}
}

package router

import (
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/changestream"
	"github.com/relaydb/relaydb/internal/shard/key"
)

// Merged change streams (mongos's DocumentSourceMergeCursors with the
// change stream's high-water marks): a stream on a sharded collection, a
// database or the cluster opens one $changeStream cursor on every shard,
// all from the same start point, and merges their events in resume token
// order (clusterTime, the position in the entry, then the shard's id).
// Invariants:
//   - An event is returned only when every shard with nothing buffered
//     has reported a postBatchResumeToken at or past it, so the merged
//     order is global; the router's postBatchResumeToken never goes back
//     and every event before it has been returned.
//   - An idle shard is nudged (a read with afterClusterTime: the pending
//     event's time, which makes its primary write a no-op after it, as
//     MongoDB's periodic no-op writer would) at most every nudgeEvery,
//     so a stream over an idle shard waits about one nudge, not forever.
//   - Memory is bounded: a shard is asked for more only when its buffer
//     is empty, at most shardBatch events a time.
//   - Every loop is bounded in rounds and by the getMore's await time.
// The router's resume token is the shard's token followed by 0xFF and the
// shard's id, so a resume starts every shard at the right place:
// changestream_merge_token.go. Shards' streams carry $_fromRouter: they
// resume after positions their oplog does not hold and drop chunk
// migrations' writes (fromMigrate).
// Shards added while a stream is open join it within shardCheckEvery
// (changestream_merge_shards.go). TODO(#14): a removed shard's cursor
// fails the stream when it fails.
// TODO(#14): documentKey holds the shard key only when the event has
// fullDocument or fullDocumentBeforeChange (inserts, replaces,
// updateLookup, pre-images): relaydb's oplog keeps only _id for updates
// and deletes.

const (
	shardBatch   = 64                     // events per shard getMore
	nudgeEvery   = 200 * time.Millisecond // least time between two nudges of a shard
	pollAwait    = 250 * time.Millisecond // a shard getMore's longest await
	blockedAwait = 30 * time.Millisecond  // a nudged shard's getMore's await
	defaultAwait = time.Second            // a getMore's await without maxAwaitTimeMS
	maxRounds    = 200                    // shard getMore rounds per client request
)

// csShard is one shard's cursor of a merged stream.
type csShard struct {
	id     string
	t      target
	host   string
	cursor int64 // 0 once closed
	buf    []csEvent
	pbrt   changestream.Token // every event at or before it is in buf or returned
	nudged time.Time
}

// csEvent is a buffered event and its shard token.
type csEvent struct {
	tok changestream.Token
	doc bson.D
}

// csMerge is the state of a merged stream (a mergedCursor's stream).
type csMerge struct {
	shards    []*csShard
	shardColl string       // the shards' cursors' collection
	pattern   *key.Pattern // the sharded collection's key, for documentKey
	// patternOf is a database or cluster stream's key lookup (nil key:
	// the collection is not sharded): changestream_merge_key.go.
	patternOf func(db, coll string) *key.Pattern
	resume    rtoken    // the merged postBatchResumeToken
	done      bool      // invalidated
	open      csOpen    // how a new shard's cursor is opened
	checked   time.Time // when config.shards was last read
	ddlSeen   map[string]bool
	r         *Router // closes the shards' cursors of a reaped stream
}

func (s *csShard) live() bool { return s.cursor != 0 }

// head is the shard whose first buffered event comes next; nil if none.
func (m *csMerge) head() *csShard {
	var best *csShard
	for _, s := range m.shards {
		if len(s.buf) == 0 {
			continue
		}
		if best == nil || (rtoken{s.buf[0].tok, s.id}).compare(rtoken{best.buf[0].tok, best.id}) < 0 {
			best = s
		}
	}
	return best
}

// blockers are the live shards with nothing buffered whose mark is
// before t: an event at t cannot be returned until they pass it.
func (m *csMerge) blockers(t changestream.Token) []*csShard {
	var out []*csShard
	for _, s := range m.shards {
		if s.live() && len(s.buf) == 0 && s.pbrt.Compare(t) < 0 {
			out = append(out, s)
		}
	}
	return out
}

// take returns up to n returnable events (n < 0: up to a full batch).
func (m *csMerge) take(n int64) []bson.D {
	var out []bson.D
	size := 0
	for !m.done && (n < 0 || int64(len(out)) < n) {
		s := m.head()
		if s == nil || len(m.blockers(s.buf[0].tok)) > 0 {
			break
		}
		ev := s.buf[0]
		if m.duplicateDDL(ev.doc) { // changestream_merge_ddl.go
			s.buf = s.buf[1:]
			m.advance(rtoken{ev.tok, s.id})
			continue
		}
		doc := m.present(ev, s.id)
		b, _ := bsonx.Encode(doc)
		if size += len(b); size > maxBatchBytes && len(out) > 0 {
			break
		}
		s.buf = s.buf[1:]
		out = append(out, doc)
		m.advance(rtoken{ev.tok, s.id})
		if op, _ := bsonx.Get(doc, "operationType"); op == "invalidate" {
			m.done = true
		}
	}
	if len(out) == 0 || m.head() == nil {
		m.advance(m.mark())
	}
	return out
}

// mark is the least position of the live shards with nothing buffered:
// every event before it has been returned (take drains the rest first).
func (m *csMerge) mark() rtoken {
	var best *csShard
	for _, s := range m.shards {
		if s.live() && len(s.buf) == 0 && (best == nil || s.pbrt.Compare(best.pbrt) < 0) {
			best = s
		}
	}
	if best == nil {
		return m.resume
	}
	if best.pbrt.IsHighWaterMark() {
		return rtoken{tok: best.pbrt}
	}
	return rtoken{best.pbrt, best.id}
}

func (m *csMerge) advance(t rtoken) {
	if m.resume.compare(t) < 0 {
		m.resume = t
	}
}

// present is the event as the client sees it: the router's token as _id,
// the shard key in documentKey.
func (m *csMerge) present(ev csEvent, shard string) bson.D {
	doc := slices.Clone(ev.doc)
	for i := range doc {
		if doc[i].Key == "_id" {
			doc[i].Value = rtoken{ev.tok, shard}.doc()
		}
	}
	if p := m.keyOf(doc); p != nil {
		doc = withShardKey(doc, *p)
	}
	return doc
}

// withShardKey adds the shard key's fields (from fullDocument, else
// fullDocumentBeforeChange) before _id in documentKey, as MongoDB's
// documentKey on a sharded collection.
func withShardKey(doc bson.D, p key.Pattern) bson.D {
	full, _ := bsonx.Get(doc, "fullDocument")
	fd, ok := full.(bson.D)
	if !ok { // a delete's or an update's pre-image holds the key too
		full, _ = bsonx.Get(doc, "fullDocumentBeforeChange")
		fd, ok = full.(bson.D)
	}
	dkv, _ := bsonx.Get(doc, "documentKey")
	dk, isDoc := dkv.(bson.D)
	if !ok || !isDoc {
		return doc
	}
	var out bson.D
	for _, f := range p.Fields() {
		if f.Path == "_id" {
			continue
		}
		if v, found := bsonx.GetPath(fd, f.Path); found {
			out = append(out, bson.E{Key: f.Path, Value: v})
		}
	}
	if len(out) == 0 {
		return doc
	}
	for _, e := range dk {
		if _, dup := bsonx.Get(out, e.Key); !dup {
			out = append(out, e)
		}
	}
	for i := range doc {
		if doc[i].Key == "documentKey" {
			doc[i].Value = out
		}
	}
	return doc
}

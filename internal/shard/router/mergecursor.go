package router

import (
	"crypto/rand"
	"encoding/binary"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Router cursors (MongoDB's ClusterClientCursor): a find or aggregate
// answered by several shards is a cursor of the router, with an id of its
// own, over one cursor per shard. Each batch merges the shards' buffered
// documents in the sort order (without a sort: shard after shard),
// applies skip and limit, and asks a shard for more (getMore on its
// member) when its buffer runs dry.

// defaultBatch is a first batch's size without batchSize; maxBatchBytes
// bounds a batch's documents (MongoDB's 16 MiB reply budget).
const (
	defaultBatch  = 101
	maxBatchBytes = 16 * 1024 * 1024
)

// remote is one shard's cursor (or, with t.set nil, documents the router
// already holds).
type remote struct {
	t    target
	host string
	id   int64 // 0 once the shard's cursor is exhausted
	buf  []bson.D
}

func (rm *remote) live() bool { return len(rm.buf) > 0 || rm.id != 0 }

// mergedCursor is a router cursor.
type mergedCursor struct {
	mu   sync.Mutex
	id   int64
	ns   string
	coll string
	sort bson.D // nil: shard order
	// collator orders strings in the sort merge (collation.go); nil: binary.
	collator bsonx.Collator
	near     func(bson.D) float64 // with sort set: order by distance instead ($near, geo.go)
	strip    []string
	keep     []string // included paths (empty parents under them are kept)
	remotes  []*remote
	skip     int64
	limit    int64 // documents still to return; <0 unlimited
	used     time.Time
	// pipe, when set, is an aggregate's merge part (aggmerge.go): batches
	// come from it, and remotes only feed it.
	pipe *mergePipe
	// owners are the users of the connection that opened the cursor,
	// under auth (cursor_owner.go); guarded by mergedCursors.mu.
	owners []string
	// clientColl, when set, is the name the client's getMore and
	// killCursors give (a view's, views.go); coll names the shards' cursors.
	clientColl string
	// stream, when set, is a merged change stream's state
	// (changestream_merge.go): its getMore and kill are its own.
	stream *csMerge
}

// mergedCursors holds the open router cursors by id.
type mergedCursors struct {
	mu   sync.Mutex
	byID map[int64]*mergedCursor
}

func newMergedCursors() *mergedCursors { return &mergedCursors{byID: map[int64]*mergedCursor{}} }

func (mc *mergedCursors) add(c *mergedCursor) {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	now := time.Now()
	for id, old := range mc.byID {
		if now.Sub(old.used) > cursorIdle {
			delete(mc.byID, id)
			if old.pipe != nil {
				go old.closeIdlePipe() // not under mc.mu: it may talk to shards
			}
			if old.stream != nil {
				go old.closeIdleStream() // changestream_merge_fetch.go
			}
		}
	}
	for c.id == 0 || mc.byID[c.id] != nil {
		var b [8]byte
		_, _ = rand.Read(b[:])
		c.id = int64(binary.LittleEndian.Uint64(b[:]) >> 2)
	}
	c.used = now
	mc.byID[c.id] = c
}

func (mc *mergedCursors) get(id int64) *mergedCursor {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	c := mc.byID[id]
	if c != nil {
		c.used = time.Now()
	}
	return c
}

func (mc *mergedCursors) remove(id int64) {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	delete(mc.byID, id)
}

// nextBatch returns up to n documents (n < 0: as many as fit in a
// batch; n == 0: none, as a batchSize of 0 asks) and whether the cursor
// is exhausted.
func (r *Router) nextBatch(c *call, mc *mergedCursor, n int64, lsid any) ([]bson.D, bool, error) {
	if mc.pipe != nil {
		return r.pipeBatch(c, mc, n)
	}
	var out []bson.D
	size := 0
	for n < 0 || int64(len(out)) < n {
		if mc.limit == 0 {
			return out, true, nil
		}
		if err := r.fill(c, mc, lsid); err != nil {
			return nil, false, err
		}
		rm := mc.nextRemote()
		if rm == nil {
			return out, true, nil
		}
		doc := rm.buf[0]
		if mc.skip > 0 {
			rm.buf = rm.buf[1:]
			mc.skip--
			continue
		}
		doc = stripPaths(doc, mc.strip, mc.keep)
		b, _ := bsonx.Encode(doc)
		if size += len(b); size > maxBatchBytes && len(out) > 0 {
			return out, false, nil // the document stays buffered for the next batch
		}
		rm.buf = rm.buf[1:]
		out = append(out, doc)
		if mc.limit > 0 {
			mc.limit--
		}
	}
	return out, mc.limit == 0 || !anyLive(mc.remotes), nil
}

func anyLive(rs []*remote) bool {
	for _, rm := range rs {
		if rm.live() {
			return true
		}
	}
	return false
}

// fill makes sure the documents to pick from are buffered: with a sort,
// every live shard needs one; without, the first live shard.
func (r *Router) fill(c *call, mc *mergedCursor, lsid any) error {
	var need []*remote
	for _, rm := range mc.remotes {
		if len(rm.buf) == 0 && rm.id != 0 {
			need = append(need, rm)
		}
		if mc.sort == nil && rm.live() {
			break
		}
	}
	for len(need) > 0 {
		errs := make([]error, len(need))
		var wg sync.WaitGroup
		for i, rm := range need {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = r.shardGetMore(c, mc, rm, lsid)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		need = slices.DeleteFunc(need, func(rm *remote) bool { return len(rm.buf) > 0 || rm.id == 0 })
	}
	return nil
}

// shardGetMore fetches rm's next batch from the member holding it.
func (r *Router) shardGetMore(c *call, mc *mergedCursor, rm *remote, lsid any) error {
	cmd := bson.D{{Key: "getMore", Value: rm.id}, {Key: "collection", Value: mc.coll}}
	if lsid != nil {
		cmd = append(cmd, bson.E{Key: "lsid", Value: lsid})
	}
	reply, err := r.runOnCursorHost(c, cursorEntry{t: rm.t, host: rm.host}, cmd)
	if err != nil {
		return err
	}
	r.observeClusterTime(reply)
	rm.buf = firstBatch(reply)
	rm.id = cursorID(reply)
	return nil
}

// killRemotes closes the shards' cursors that are still open.
func (r *Router) killRemotes(c *call, mc *mergedCursor, lsid any) {
	if mc.stream != nil {
		r.killStreamShards(c, mc)
	}
	for _, rm := range mc.remotes {
		if rm.id == 0 || rm.t.set == nil {
			continue
		}
		cmd := bson.D{{Key: "killCursors", Value: mc.coll}, {Key: "cursors", Value: bson.A{rm.id}}}
		if lsid != nil {
			cmd = append(cmd, bson.E{Key: "lsid", Value: lsid})
		}
		_, _ = r.runOnCursorHost(c, cursorEntry{t: rm.t, host: rm.host}, cmd)
		rm.id = 0
	}
	if mc.pipe != nil {
		mc.pipe.close(c)
	}
}

// firstReply builds the first batch of a new router cursor and registers
// it when documents remain.
func (r *Router) firstReply(c *call, mc *mergedCursor, batchSize int64, singleBatch bool) (bson.D, error) {
	lsid, _ := bsonx.Get(c.cmd, "lsid")
	mc.mu.Lock()
	defer mc.mu.Unlock()
	docs, done, err := r.nextBatch(c, mc, batchSize, lsid)
	if err != nil {
		r.killRemotes(c, mc, lsid)
		return nil, err
	}
	if done || singleBatch {
		r.killRemotes(c, mc, lsid)
	} else {
		r.merged.add(mc)
	}
	id := int64(0)
	if !done && !singleBatch {
		id = mc.id
	}
	return cursorReply(mc.ns, id, "firstBatch", docs), nil
}

func cursorReply(ns string, id int64, field string, docs []bson.D) bson.D {
	arr := make(bson.A, len(docs))
	for i, d := range docs {
		arr[i] = d
	}
	return bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: id}, {Key: "ns", Value: ns}, {Key: field, Value: arr}}},
		{Key: "ok", Value: 1.0}}
}

// mergedGetMore serves getMore on a router cursor.
func (r *Router) mergedGetMore(c *call, mc *mergedCursor) (bson.D, error) {
	if coll, _ := bsonx.Get(c.cmd, "collection"); coll != mc.coll && (mc.clientColl == "" || coll != mc.clientColl) {
		return nil, mongoerr.New(mongoerr.Unauthorized, "Requested getMore on namespace '%s.%v', but cursor belongs to a different namespace %s", c.db, coll, mc.ns)
	}
	bs, _ := bsonx.Get(c.cmd, "batchSize")
	n, _ := bsonx.AsInt64(bs)
	if n <= 0 { // getMore's batchSize 0 or none: a full batch
		n = -1
	}
	lsid, _ := bsonx.Get(c.cmd, "lsid")
	mc.mu.Lock()
	defer mc.mu.Unlock()
	if mc.stream != nil {
		return r.streamGetMore(c, mc, n)
	}
	docs, done, err := r.nextBatch(c, mc, n, lsid)
	if err != nil {
		r.killRemotes(c, mc, lsid)
		r.merged.remove(mc.id)
		return nil, err
	}
	id := mc.id
	if done {
		r.killRemotes(c, mc, lsid)
		r.merged.remove(mc.id)
		id = 0
	}
	return r.gossip(cursorReply(mc.ns, id, "nextBatch", docs)), nil
}

// killMerged closes a router cursor and its shards' cursors.
func (r *Router) killMerged(c *call, mc *mergedCursor) {
	lsid, _ := bsonx.Get(c.cmd, "lsid")
	mc.mu.Lock()
	defer mc.mu.Unlock()
	r.killRemotes(c, mc, lsid)
	r.merged.remove(mc.id)
}

// nextRemote is the shard cursor whose buffered document comes next: the
// least in mc.sort's order, or the first with documents when unsorted;
// nil when every buffer is empty.
func (mc *mergedCursor) nextRemote() *remote {
	var best *remote
	for _, rm := range mc.remotes {
		if len(rm.buf) == 0 {
			continue
		}
		if mc.sort == nil {
			return rm
		}
		if best == nil || mc.less(rm.buf[0], best.buf[0]) {
			best = rm
		}
	}
	return best
}

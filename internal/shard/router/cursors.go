package router

import (
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// cursorIdle is how long an unused cursor entry is kept: a shard times its
// cursors out after 10 minutes of inactivity, so a router entry older
// than this points at nothing.
const cursorIdle = 30 * time.Minute

// cursorTable maps the cursor ids shards returned to the shard holding
// them. In stage 1 a cursor lives on one shard, so the id the client
// holds is the shard's own (ids are random 62-bit numbers, so two shards'
// ids do not collide in practice). Router cursors over several shards
// will get ids of their own (TODO(#11)).
type cursorTable struct {
	mu struct {
		sync.Mutex
		byID    map[int64]cursorEntry
		inserts int
	}
}

type cursorEntry struct {
	t    target
	used time.Time
}

func newCursorTable() *cursorTable {
	ct := &cursorTable{}
	ct.mu.byID = map[int64]cursorEntry{}
	return ct
}

func (ct *cursorTable) len() int {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	return len(ct.mu.byID)
}

// addFrom records the cursor a reply opened on t ({cursor: {id, ...}}).
func (ct *cursorTable) addFrom(reply bson.D, t target) {
	id := cursorID(reply)
	if id == 0 {
		return
	}
	now := time.Now()
	ct.mu.Lock()
	defer ct.mu.Unlock()
	ct.mu.byID[id] = cursorEntry{t: t, used: now}
	if ct.mu.inserts++; ct.mu.inserts%1024 == 0 {
		for k, e := range ct.mu.byID {
			if now.Sub(e.used) > cursorIdle {
				delete(ct.mu.byID, k)
			}
		}
	}
}

func (ct *cursorTable) lookup(id int64) (target, bool) {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	e, ok := ct.mu.byID[id]
	if ok {
		e.used = time.Now()
		ct.mu.byID[id] = e
	}
	return e.t, ok
}

func (ct *cursorTable) remove(ids ...int64) {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	for _, id := range ids {
		delete(ct.mu.byID, id)
	}
}

// cursorID reads reply.cursor.id (0 when absent).
func cursorID(reply bson.D) int64 {
	cur, _ := bsonx.Get(reply, "cursor")
	d, _ := cur.(bson.D)
	v, _ := bsonx.Get(d, "id")
	id, _ := bsonx.AsInt64(v)
	return id
}

// getMore goes to the shard that opened the cursor. It is never resent
// after a network failure: the shard may have advanced the cursor.
func (r *Router) getMore(c *call) (bson.D, error) {
	id, ok := bsonx.AsInt64(c.cmd[0].Value)
	if !ok {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'getMore.getMore' is the wrong type, expected type 'long'")
	}
	t, found := r.cursors.lookup(id)
	if !found {
		return nil, mongoerr.New(mongoerr.CursorNotFound, "cursor id %d not found", id)
	}
	reply, err := t.set.Run(c.ctx, c.db, c.cmd, false)
	if reply == nil {
		return nil, err
	}
	if cursorID(reply) == 0 || mongoerr.Is(err, mongoerr.CursorNotFound) {
		r.cursors.remove(id)
	}
	return reply, nil
}

// killCursors goes to the shard of the listed cursors (one collection's
// cursors are on one shard); ids the router never saw are reported as not
// found without asking anyone.
func (r *Router) killCursors(c *call) (bson.D, error) {
	v, _ := bsonx.Get(c.cmd, "cursors")
	arr, _ := v.(bson.A)
	var ids []int64
	var t target
	unknown := bson.A{}
	for _, e := range arr {
		id, ok := bsonx.AsInt64(e)
		if !ok {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "killCursors: cursor ids must be longs, got %v", e)
		}
		if et, found := r.cursors.lookup(id); found && (t.set == nil || et.set == t.set) {
			t = et
			ids = append(ids, id)
			continue
		}
		unknown = append(unknown, id)
	}
	if t.set == nil {
		return bson.D{{Key: "cursorsKilled", Value: bson.A{}}, {Key: "cursorsNotFound", Value: unknown},
			{Key: "cursorsAlive", Value: bson.A{}}, {Key: "cursorsUnknown", Value: bson.A{}}, {Key: "ok", Value: 1.0}}, nil
	}
	cmd := c.cmd
	if len(unknown) > 0 {
		list := make(bson.A, len(ids))
		for i, id := range ids {
			list[i] = id
		}
		cmd = replaceField(c.cmd, "cursors", list)
	}
	reply, err := t.set.Run(c.ctx, c.db, cmd, true)
	if reply == nil {
		return nil, err
	}
	r.cursors.remove(ids...)
	if len(unknown) > 0 {
		reply = appendToArray(reply, "cursorsNotFound", unknown)
	}
	return reply, nil
}

func replaceField(cmd bson.D, key string, v any) bson.D {
	out := make(bson.D, len(cmd))
	copy(out, cmd)
	for i := range out {
		if out[i].Key == key {
			out[i].Value = v
		}
	}
	return out
}

func appendToArray(doc bson.D, key string, more bson.A) bson.D {
	for i, e := range doc {
		if e.Key == key {
			arr, _ := e.Value.(bson.A)
			doc[i].Value = append(arr, more...)
			return doc
		}
	}
	return doc
}

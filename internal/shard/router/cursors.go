package router

import (
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/netclient"
)

// cursorIdle is how long an unused cursor entry is kept: a shard times its
// cursors out after 10 minutes of inactivity, so a router entry older
// than this points at nothing.
const cursorIdle = 30 * time.Minute

// cursorTable maps the cursor ids shards returned to the shard holding
// them: a cursor on one shard keeps the shard's own id (ids are random
// 62-bit numbers, so two shards' ids do not collide in practice). Router
// cursors over several shards have ids of their own (mergecursor.go).
type cursorTable struct {
	mu struct {
		sync.Mutex
		byID    map[int64]cursorEntry
		inserts int
	}
}

type cursorEntry struct {
	t    target
	host string // the member holding the cursor
	used time.Time
	// owners are the users of the connection that opened the cursor,
	// under auth (cursor_owner.go); guarded by cursorTable.mu.
	owners []string
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

// addFrom records the cursor a reply from host (a member of t) opened
// ({cursor: {id, ...}}).
func (ct *cursorTable) addFrom(reply bson.D, t target, host string) {
	if id := cursorID(reply); id != 0 {
		ct.add(id, t, host)
	}
}

// add records cursor id, held by host (a member of t).
func (ct *cursorTable) add(id int64, t target, host string) {
	now := time.Now()
	ct.mu.Lock()
	defer ct.mu.Unlock()
	ct.mu.byID[id] = cursorEntry{t: t, host: host, used: now}
	if ct.mu.inserts++; ct.mu.inserts%1024 == 0 {
		for k, e := range ct.mu.byID {
			if now.Sub(e.used) > cursorIdle {
				delete(ct.mu.byID, k)
			}
		}
	}
}

func (ct *cursorTable) lookup(id int64) (cursorEntry, bool) {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	e, ok := ct.mu.byID[id]
	if ok {
		e.used = time.Now()
		ct.mu.byID[id] = e
	}
	return e, ok
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

// runOnCursorHost sends a cursor command to the member holding the cursor
// (a primary that stepped down keeps it; so does a secondary). It is never
// resent: the member may have advanced the cursor.
func (r *Router) runOnCursorHost(c *call, e cursorEntry, cmd bson.D) (bson.D, error) {
	if e.host == "" {
		return e.t.set.Run(c.ctx, c.db, cmd, false)
	}
	reply, err := r.pool.Run(c.ctx, e.host, c.db, cmd)
	if netclient.IsNetworkError(err) {
		r.pool.Forget(e.host)
		return nil, mongoerr.New(mongoerr.HostUnreachable, "network error while sending %s to %s: %v", cmdName(cmd), e.host, err)
	}
	return reply, err
}

// getMore goes to the member that opened the cursor.
func (r *Router) getMore(c *call) (bson.D, error) {
	id, ok := bsonx.AsInt64(c.cmd[0].Value)
	if !ok {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'getMore.getMore' is the wrong type, expected type 'long'")
	}
	if err := r.checkGetMoreOwner(c, id); err != nil { // cursor_owner.go
		return nil, err
	}
	if err := r.getMoreFailure(c, id); err != nil { // failpoint_getmore.go
		return nil, err
	}
	if mc := r.merged.get(id); mc != nil {
		return r.mergedGetMore(c, mc)
	}
	e, found := r.cursors.lookup(id)
	if !found {
		return nil, mongoerr.New(mongoerr.CursorNotFound, "cursor id %d not found", id)
	}
	reply, err := r.runOnCursorHost(c, e, c.cmd)
	if reply == nil {
		return nil, err
	}
	if cursorID(reply) == 0 || mongoerr.Is(err, mongoerr.CursorNotFound) {
		r.cursors.remove(id)
	}
	return reply, nil
}

// killCursors goes to the member holding the listed cursors (one
// collection's cursors opened together are on one member); ids the router
// never saw, or held elsewhere, are reported as not found without asking
// anyone.
func (r *Router) killCursors(c *call) (bson.D, error) {
	v, _ := bsonx.Get(c.cmd, "cursors")
	arr, _ := v.(bson.A)
	if err := r.checkKillOwner(c, arr); err != nil { // cursor_owner.go
		return nil, err
	}
	var ids []int64
	var held cursorEntry
	unknown := bson.A{}
	killed := bson.A{} // router cursors
	for _, e := range arr {
		id, ok := bsonx.AsInt64(e)
		if !ok {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "killCursors: cursor ids must be longs, got %v", e)
		}
		if mc := r.merged.get(id); mc != nil {
			r.killMerged(c, mc)
			killed = append(killed, id)
			continue
		}
		if e, found := r.cursors.lookup(id); found && (held.t.set == nil || (e.t.set == held.t.set && e.host == held.host)) {
			held = e
			ids = append(ids, id)
			continue
		}
		unknown = append(unknown, id)
	}
	if held.t.set == nil {
		return bson.D{{Key: "cursorsKilled", Value: killed}, {Key: "cursorsNotFound", Value: unknown},
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
	reply, err := r.runOnCursorHost(c, held, cmd)
	if reply == nil {
		return nil, err
	}
	r.cursors.remove(ids...)
	if len(unknown) > 0 {
		reply = appendToArray(reply, "cursorsNotFound", unknown)
	}
	if len(killed) > 0 {
		reply = appendToArray(reply, "cursorsKilled", killed)
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

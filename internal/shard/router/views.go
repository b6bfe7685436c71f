package router

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Views over sharded collections (MongoDB's ClusterAggregate::
// retryOnViewError). A view is not in the routing tables, so its reads go
// to the database's primary shard; when the view's collection is sharded
// the shard answers CommandOnShardedViewNotSupportedOnMongod (169) with
// resolvedView {ns, pipeline} (internal/command/view_sharded.go). The
// router then re-runs the read as an aggregate of that collection, the
// view's pipeline first (find, count and distinct become stages,
// views_convert.go), through the ordinary routing, and answers in the
// shape of the command the client sent: find and aggregate a cursor named
// after the view, count {n}, distinct {values}, explain the aggregate's.
//
// Invariants:
//   - A read is re-run at most once: a second 169 (the view was redefined
//     meanwhile) goes back to the client as it is.
//   - A cursor of the re-run is a router cursor that answers getMore and
//     killCursors naming the view; the shards' cursors it reads are
//     named after the collection (clientColl in mergecursor.go).

// viewReads are the commands a shard may answer with a resolved view.
var viewReads = map[string]bool{"find": true, "count": true, "distinct": true, "aggregate": true, "explain": true}

// resolvedView is the extra info of a 169 reply.
type resolvedView struct {
	coll     string // the collection under the view chain, in the view's database
	pipeline bson.A // the chain's pipelines, innermost first
}

// resolvedViewOf returns the resolved view of a 169 reply.
func resolvedViewOf(reply bson.D) (resolvedView, bool) {
	code, _ := bsonx.AsInt64(valueOf(reply, "code"))
	if ok, _ := bsonx.AsInt64(valueOf(reply, "ok")); ok != 0 || mongoerr.Code(code) != mongoerr.CommandOnShardedViewNotSupportedOnMongod {
		return resolvedView{}, false
	}
	rv, _ := valueOf(reply, "resolvedView").(bson.D)
	ns, _ := valueOf(rv, "ns").(string)
	_, coll, found := strings.Cut(ns, ".")
	if !found || coll == "" {
		return resolvedView{}, false
	}
	pipeline, _ := valueOf(rv, "pipeline").(bson.A)
	return resolvedView{coll: coll, pipeline: pipeline}, true
}

func valueOf(d bson.D, key string) any {
	v, _ := bsonx.Get(d, key)
	return v
}

// rerunResolvedView re-runs c over the collection under a view when reply
// is a shard's 169; any other reply is returned unchanged.
func (r *Router) rerunResolvedView(c *call, reply bson.D) (bson.D, error) {
	if !viewReads[c.name] {
		return reply, nil
	}
	rv, ok := resolvedViewOf(reply)
	if !ok {
		return reply, nil
	}
	view, _ := c.cmd[0].Value.(string)
	inner := c.cmd
	if c.name == "explain" {
		inner, _ = c.cmd[0].Value.(bson.D)
		if len(inner) == 0 {
			return reply, nil
		}
		view, _ = inner[0].Value.(string)
	}
	agg, err := viewAggregate(inner, rv)
	if err != nil {
		return nil, err
	}
	if c.name == "explain" {
		out, err := explainCmd(&call{r: r, conn: c.conn, db: c.db, cmd: setField(c.cmd, "explain", agg), name: "explain", ctx: c.ctx})
		if err != nil {
			return nil, err
		}
		return append(out, bson.E{Key: "ok", Value: 1.0}), nil
	}
	out, err := r.forward(&call{r: r, conn: c.conn, db: c.db, cmd: agg, name: "aggregate", ctx: c.ctx})
	if err != nil || !replyOK(out) {
		return out, err
	}
	switch c.name {
	case "count":
		n, _ := bsonx.AsInt64(valueOf(firstDoc(out), "count"))
		return r.gossip(bson.D{{Key: "n", Value: int32(n)}, {Key: "ok", Value: 1.0}}), nil
	case "distinct":
		vals, _ := valueOf(firstDoc(out), "distinct").(bson.A)
		if vals == nil {
			vals = bson.A{}
		}
		return r.gossip(bson.D{{Key: "values", Value: vals}, {Key: "ok", Value: 1.0}}), nil
	}
	if _, isExplain := bsonx.Get(agg, "explain"); isExplain {
		return out, nil
	}
	return r.singleBatchKill(c, r.viewCursor(c, out, rv.coll, view), view), nil
}

func replyOK(reply bson.D) bool {
	ok, _ := bsonx.AsInt64(valueOf(reply, "ok"))
	return ok == 1
}

// firstDoc is the first document of a cursor reply's first batch.
func firstDoc(reply bson.D) bson.D {
	batch := firstBatch(reply)
	if len(batch) == 0 {
		return nil
	}
	return batch[0]
}

// viewCursor names reply's cursor after the view: a router cursor is
// renamed, a shard's cursor becomes a router cursor over it (so getMore
// naming the view reaches the shard naming the collection).
func (r *Router) viewCursor(c *call, reply bson.D, coll, view string) bson.D {
	ns := c.db + "." + view
	id := cursorID(reply)
	if id != 0 {
		if mc := r.merged.get(id); mc != nil {
			mc.mu.Lock()
			mc.ns, mc.clientColl = ns, view
			mc.mu.Unlock()
		} else if e, found := r.cursors.lookup(id); found {
			r.cursors.remove(id)
			mc := &mergedCursor{ns: ns, coll: coll, clientColl: view, limit: -1,
				remotes: []*remote{{t: e.t, host: e.host, id: id}}}
			r.merged.add(mc)
			id = mc.id
		}
	}
	cur, _ := valueOf(reply, "cursor").(bson.D)
	out := make(bson.D, 0, len(cur))
	for _, e := range cur {
		switch e.Key {
		case "id":
			e.Value = id
		case "ns":
			e.Value = ns
		}
		out = append(out, e)
	}
	return setField(reply, "cursor", out)
}

// singleBatchKill closes a find's cursor after its first batch when the
// client asked for one batch only (the aggregate has no such option).
func (r *Router) singleBatchKill(c *call, reply bson.D, view string) bson.D {
	id := cursorID(reply)
	if v, _ := bsonx.Get(c.cmd, "singleBatch"); v != true || id == 0 {
		return reply
	}
	kill := bson.D{{Key: "killCursors", Value: view}, {Key: "cursors", Value: bson.A{id}}}
	if lsid, ok := bsonx.Get(c.cmd, "lsid"); ok {
		kill = append(kill, bson.E{Key: "lsid", Value: lsid})
	}
	_, _ = r.killCursors(&call{r: r, conn: c.conn, db: c.db, cmd: kill, name: "killCursors", ctx: c.ctx})
	cur, _ := valueOf(reply, "cursor").(bson.D)
	return setField(reply, "cursor", setField(cur, "id", int64(0)))
}

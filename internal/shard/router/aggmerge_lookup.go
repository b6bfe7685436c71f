package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/iterx"
)

// routerLookup resolves the collections $lookup, $graphLookup and
// $unionWith read in a merge part: a find through the router itself (so
// a sharded collection is read from all its shards, an unsharded one
// from its primary shard), read batch by batch with getMore (one batch
// held at a time) and killed when the stage closes it early.
// TODO(#15): push $lookup's equality and sub-pipeline $match down into
// this find; today a foreign collection larger than the lookup cache is
// read whole again for each local document.
func (r *Router) routerLookup(p *mergePipe) func(db, coll string) (agg.Iterator, error) {
	return func(db, coll string) (agg.Iterator, error) {
		cmd := append(bson.D{{Key: "find", Value: coll}}, p.reads...)
		reply, err := r.subCommand(p.c, db, cmd)
		if err != nil {
			return nil, err
		}
		rc := &routerCursor{r: r, p: p, db: db, coll: coll, id: cursorID(reply), buf: firstBatch(reply)}
		return iterx.Func(rc.next, rc.close), nil
	}
}

// readOptions are the aggregate's fields every read it makes carries.
func readOptions(cmd bson.D) bson.D {
	var out bson.D
	for _, f := range []string{"readConcern", "$readPreference"} {
		if v, ok := bsonx.Get(cmd, f); ok {
			out = append(out, bson.E{Key: f, Value: v})
		}
	}
	return out
}

// subCommand runs cmd (with the client's session) through the router as
// if the client had sent it, and turns an ok:0 reply into its error.
func (r *Router) subCommand(c *call, db string, cmd bson.D) (bson.D, error) {
	if lsid, ok := bsonx.Get(c.cmd, "lsid"); ok {
		cmd = append(cmd, bson.E{Key: "lsid", Value: lsid})
	}
	sub := &call{r: r, conn: c.conn, db: db, cmd: cmd, name: cmdName(cmd), ctx: c.ctx}
	reply, err := forwardSub(r, sub)
	if err != nil {
		return nil, err
	}
	if err := replyError(reply); err != nil {
		return nil, err
	}
	return reply, nil
}

// forwardSub is Router.forward, set at init: the sharded command table
// leads to forward, which leads back to the table.
var forwardSub func(r *Router, c *call) (bson.D, error)

func init() { forwardSub = (*Router).forward }

// routerCursor reads a cursor the router opened for itself.
type routerCursor struct {
	r        *Router
	p        *mergePipe
	db, coll string
	id       int64
	buf      []bson.D
}

func (rc *routerCursor) next() (bson.D, bool, error) {
	for len(rc.buf) == 0 {
		if rc.id == 0 {
			return nil, false, nil
		}
		reply, err := rc.r.subCommand(rc.p.c, rc.db, bson.D{{Key: "getMore", Value: rc.id}, {Key: "collection", Value: rc.coll}})
		if err != nil {
			rc.id = 0
			return nil, false, err
		}
		rc.id, rc.buf = cursorID(reply), firstBatch(reply)
	}
	d := rc.buf[0]
	rc.buf = rc.buf[1:]
	return d, true, nil
}

func (rc *routerCursor) close() error {
	if rc.id != 0 {
		_, _ = rc.r.subCommand(rc.p.c, rc.db, bson.D{{Key: "killCursors", Value: rc.coll}, {Key: "cursors", Value: bson.A{rc.id}}})
		rc.id = 0
	}
	rc.buf = nil
	return nil
}

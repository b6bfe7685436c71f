package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/iterx"
)

// An aggregate on an unsharded collection goes whole to the database's
// primary shard, which reads the other collections its $lookup,
// $graphLookup and $unionWith name, and writes its $out or $merge
// target, locally. When one of those is sharded that is wrong (the
// primary shard holds part of it at most), so such an aggregate is split
// like a sharded collection's: the primary shard runs the shards part
// (an aggregate forwarded as usual), the router the merge part.

// unshardedAggregate serves an aggregate on an unsharded collection that
// names a sharded collection; handled is false for any other command.
func (r *Router) unshardedAggregate(c *call) (reply bson.D, handled bool, err error) {
	if c.name != "aggregate" || txnKey(c.cmd) != "" || truthy(c.cmd, "explain") || malformedAggregate(c.cmd) {
		return nil, false, nil
	}
	pv, _ := bsonx.Get(c.cmd, "pipeline")
	sharded := false
	for _, ns := range namedCollections(pv, c.db) {
		cm, err := r.catalog.get(c.ctx, ns)
		if err != nil {
			return nil, true, err
		}
		sharded = sharded || cm != nil
	}
	if !sharded {
		return nil, false, nil
	}
	reply, err = r.aggregateUnshardedSource(c)
	return reply, true, err
}

func (r *Router) aggregateUnshardedSource(c *call) (bson.D, error) {
	sp, err := r.compileSplit(c)
	if err != nil {
		return nil, err
	}
	coll, _ := c.cmd[0].Value.(string)
	cmd := withoutField(withoutField(setField(c.cmd, "pipeline", sp.plan.shards), "writeConcern"), "lsid")
	cmd = setField(cmd, "cursor", bson.D{{Key: "batchSize", Value: int64(defaultBatch)}})
	first, err := r.subCommand(c, c.db, cmd)
	if err != nil {
		return nil, err
	}
	rc := &routerCursor{r: r, p: sp.pipe, db: c.db, coll: coll, id: cursorID(first), buf: firstBatch(first)}
	mc := &mergedCursor{ns: c.db + "." + coll, coll: coll, limit: -1, pipe: sp.pipe}
	sp.pipe.it = sp.mergePart.Run(iterx.Func(rc.next, rc.close))
	if sp.out != nil || sp.merge != nil {
		return r.writeOutput(c, mc, sp.out, sp.merge)
	}
	return r.firstReply(c, mc, aggBatchSize(c.cmd), false)
}

// namedCollections lists the namespaces the stages in v (sub-pipelines
// included) read or write besides the source: $lookup's and
// $graphLookup's from, $unionWith's coll, $out's and $merge's target.
func namedCollections(v any, db string) []string {
	var out []string
	switch t := v.(type) {
	case bson.D:
		for _, e := range t {
			switch e.Key {
			case "$lookup", "$graphLookup":
				out = appendName(out, db, "", docValue(e.Value, "from"))
			case "$unionWith":
				out = appendName(out, db, "", e.Value, docValue(e.Value, "coll"))
			case "$out":
				out = appendName(out, db, docValue(e.Value, "db"), e.Value, docValue(e.Value, "coll"))
			case "$merge":
				into := docValue(e.Value, "into")
				if into == nil {
					into = e.Value
				}
				out = appendName(out, db, docValue(into, "db"), into, docValue(into, "coll"))
			}
			out = append(out, namedCollections(e.Value, db)...)
		}
	case bson.A:
		for _, x := range t {
			out = append(out, namedCollections(x, db)...)
		}
	}
	return out
}

func docValue(v any, key string) any {
	d, _ := v.(bson.D)
	x, _ := bsonx.Get(d, key)
	return x
}

// appendName adds db.name for the first string among names (in dbName's
// database when it is a string).
func appendName(out []string, db string, dbName any, names ...any) []string {
	if s, ok := dbName.(string); ok && s != "" {
		db = s
	}
	for _, n := range names {
		if s, ok := n.(string); ok && s != "" {
			return append(out, db+"."+s)
		}
	}
	return out
}

package router

import (
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

// currentOp and $currentOp on a router list every shard's running
// operations, as mongos does: each document gains `shard` and its opid
// becomes "<shard>:<opid>"; the command's filter (or the stages after
// $currentOp) apply here, over the merged list.
// TODO(#14): the router's own operations (localOps: true) and the
// config servers' are not listed.

func init() {
	localCommands["currentOp"] = handler{fn: routerCurrentOp, adminOnly: true}
}

// currentOpGeneric are command fields that are not part of the filter.
var currentOpGeneric = map[string]bool{"$all": true, "$ownOps": true, "$db": true, "lsid": true, "$clusterTime": true,
	"$readPreference": true, "txnNumber": true, "autocommit": true, "apiVersion": true, "apiStrict": true,
	"apiDeprecationErrors": true, "comment": true, "maxTimeMS": true, "readConcern": true, "writeConcern": true}

func routerCurrentOp(c *call) (bson.D, error) {
	filter := bson.D{}
	for _, e := range c.cmd[1:] {
		if !currentOpGeneric[e.Key] {
			filter = append(filter, e)
		}
	}
	m, err := query.Compile(filter)
	if err != nil {
		return nil, err
	}
	ops, err := c.r.shardOps(c)
	if err != nil {
		return nil, err
	}
	inprog := bson.A{}
	for _, op := range ops {
		if m.Match(op) {
			inprog = append(inprog, op)
		}
	}
	return bson.D{{Key: "inprog", Value: inprog}}, nil
}

// routeCurrentOp serves {aggregate: 1, pipeline: [{$currentOp: {...}},
// ...]} on admin; handled is false for any other command.
func (r *Router) routeCurrentOp(c *call) (reply bson.D, handled bool, err error) {
	if c.name != "aggregate" {
		return nil, false, nil
	}
	v, _ := bsonx.Get(c.cmd, "pipeline")
	stages, _ := v.(bson.A)
	if len(stages) == 0 {
		return nil, false, nil
	}
	if first, _ := stages[0].(bson.D); len(first) != 1 || first[0].Key != "$currentOp" {
		return nil, false, nil
	}
	if target, _ := bsonx.AsInt64(c.cmd[0].Value); c.db != "admin" || target != 1 {
		return nil, true, mongoerr.New(mongoerr.InvalidNamespace, "$currentOp must be run against the 'admin' database with {aggregate: 1}")
	}
	ops, err := r.shardOps(c)
	if err != nil {
		return nil, true, err
	}
	if ops, err = runRest(c.db, stages[1:], ops); err != nil {
		return nil, true, err
	}
	return r.gossip(collStatsReply("admin.$cmd.aggregate", ops)), true, nil
}

// shardOps asks every shard for its operations.
func (r *Router) shardOps(c *call) ([]bson.D, error) {
	shards, err := r.allShards(c.ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(shards))
	for id := range shards {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var out []bson.D
	for _, id := range ids {
		reply, err := shards[id].Run(c.ctx, "admin", bson.D{{Key: "currentOp", Value: int32(1)}, {Key: "$all", Value: true}}, true)
		if err != nil {
			return nil, fmt.Errorf("currentOp on shard %s: %w", id, err)
		}
		v, _ := bsonx.Get(reply, "inprog")
		arr, _ := v.(bson.A)
		for _, x := range arr {
			if d, ok := x.(bson.D); ok {
				out = append(out, shardOp(id, d))
			}
		}
	}
	return out, nil
}

// shardOp adds shard after host and prefixes opid with the shard's name.
func shardOp(shard string, d bson.D) bson.D {
	out := make(bson.D, 0, len(d)+1)
	for _, e := range d {
		if e.Key == "opid" {
			e.Value = fmt.Sprintf("%s:%v", shard, e.Value)
		}
		out = append(out, e)
		if e.Key == "host" {
			out = append(out, bson.E{Key: "shard", Value: shard})
		}
	}
	return out
}

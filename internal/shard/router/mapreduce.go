package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// mapReduce on a sharded collection runs as the aggregate that computes
// it (command.MapReduceAsAggregate), split over the shards like any
// aggregate ($function on the shards, $accumulator merged by the router:
// pipeline_group_script.go). On an unsharded collection the primary shard
// runs the command itself.
func init() {
	shardedCommands["mapReduce"] = (*Router).shardedMapReduce
	shardedCommands["mapreduce"] = (*Router).shardedMapReduce
}

func (r *Router) shardedMapReduce(c *call, ns string, cm *routing.ChunkManager) (bson.D, error) {
	agg, finish, err := command.MapReduceAsAggregate(c.cmd, c.db)
	if err != nil {
		return nil, err
	}
	ac := *c
	ac.cmd, ac.name = agg, "aggregate"
	reply, err := r.shardedAggregate(&ac, ns, cm)
	if err != nil {
		return nil, err
	}
	out, err := finish(reply)
	if err != nil {
		return nil, err
	}
	return append(out, bson.E{Key: "ok", Value: 1.0}), nil
}

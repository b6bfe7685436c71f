package router

import (
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
)

// removeShard ({removeShard: "sh1"}) empties a shard and then forgets it,
// as MongoDB 7.0 does, one call at a time:
//   - the first call marks it draining: true in config.shards (the
//     balancer moves its chunks to the other shards) and answers state
//     "started" with the databases whose primary it is (dbsToMove: the
//     user moves them with movePrimary or drops them);
//   - later calls answer state "ongoing" with what is left (chunks, dbs,
//     jumboChunks);
//   - the call that finds nothing left removes its config.shards entry
//     and answers state "completed".
// Removing the last shard is IllegalOperation; an unknown one
// ShardNotFound.
//
// A new database is never placed on a draining shard.
// TODO(#14): the shard's own data is left on its processes (relaydb
// cluster remove-shard stops them).

const removeShardNote = "you need to call moveprimary for these databases or drop them"

func init() {
	localCommands["removeShard"] = handler{fn: removeShard, adminOnly: true}
	localCommands["removeshard"] = handler{fn: removeShard, adminOnly: true}
}

func removeShard(c *call) (bson.D, error) {
	if err := c.useMetadataWriteConcern(); err != nil {
		return nil, err
	}
	id, isStr := c.cmd[0].Value.(string)
	if !isStr {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'removeShard' is the wrong type '%T', expected type 'string'", c.cmd[0].Value)
	}
	shards, err := c.r.meta.Shards(c.ctx)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(shards, func(s configsvr.Shard) bool { return s.ID == id }) {
		return nil, mongoerr.New(mongoerr.ShardNotFound, "Shard %s not found", id)
	}
	if len(shards) == 1 {
		return nil, mongoerr.New(mongoerr.IllegalOperation, "Operation not allowed because it would remove the last shard")
	}
	_, draining, err := c.r.meta.ShardDraining(c.ctx, id)
	if err != nil {
		return nil, err
	}
	dbs, err := c.r.primaryOf(c, id)
	if err != nil {
		return nil, err
	}
	if !draining {
		if err := c.r.meta.SetShardDraining(c.ctx, id); err != nil {
			return nil, err
		}
		c.r.log.Info("removeShard: draining started", "shard", id, "dbsToMove", dbs)
		return bson.D{{Key: "msg", Value: "draining started successfully"}, {Key: "state", Value: "started"},
			{Key: "shard", Value: id}, {Key: "note", Value: removeShardNote}, {Key: "dbsToMove", Value: dbs}}, nil
	}
	return c.r.removeShardProgress(c, id, dbs)
}

// removeShardProgress answers "ongoing" with what is left, or removes the
// shard and answers "completed".
func (r *Router) removeShardProgress(c *call, id string, dbs bson.A) (bson.D, error) {
	chunks, err := r.meta.CountChunks(c.ctx, bson.D{{Key: "shard", Value: id}})
	if err != nil {
		return nil, err
	}
	jumbo, err := r.meta.CountChunks(c.ctx, bson.D{{Key: "shard", Value: id}, {Key: "jumbo", Value: true}})
	if err != nil {
		return nil, err
	}
	if chunks > 0 || len(dbs) > 0 {
		return bson.D{{Key: "msg", Value: "draining ongoing"}, {Key: "state", Value: "ongoing"},
			{Key: "remaining", Value: bson.D{{Key: "chunks", Value: chunks}, {Key: "dbs", Value: int64(len(dbs))},
				{Key: "jumboChunks", Value: jumbo}}},
			{Key: "note", Value: removeShardNote}, {Key: "dbsToMove", Value: dbs}}, nil
	}
	if err := r.meta.RemoveShard(c.ctx, id); err != nil {
		return nil, err
	}
	r.mu.Lock()
	delete(r.mu.shards, id)
	r.mu.Unlock()
	r.log.Info("removeShard: completed", "shard", id)
	return bson.D{{Key: "msg", Value: "removeshard completed successfully"}, {Key: "state", Value: "completed"},
		{Key: "shard", Value: id}}, nil
}

// primaryOf lists the databases whose primary shard is id.
func (r *Router) primaryOf(c *call, id string) (bson.A, error) {
	all, err := r.meta.Databases(c.ctx)
	if err != nil {
		return nil, err
	}
	out := bson.A{}
	for _, d := range all {
		if d.Primary == id {
			out = append(out, d.Name)
		}
	}
	return out, nil
}

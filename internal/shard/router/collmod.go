package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// shardedCollMod sends collMod on a sharded collection (a validator, say)
// to every shard; a shard that holds no copy of the collection is
// skipped (a shard that receives its first chunk later creates the
// collection with the donor's options, migrecipient_clone.go). The primary
// shard's reply (or the first) is the answer. A conversion to unique is
// checked on every shard first (checkUniqueOnShards).
func (r *Router) shardedCollMod(c *call, ns string, _ *routing.ChunkManager) (bson.D, error) {
	ids, err := r.allShardIDs(c)
	if err != nil {
		return nil, err
	}
	db, _, err := r.database(c.ctx, c.db, false)
	if err != nil {
		return nil, err
	}
	if err := r.checkUniqueOnShards(c, ids); err != nil { // collmod_unique.go
		return nil, err
	}
	var reply bson.D
	for _, sr := range r.sendAll(c, ids, false, func(string) bson.D { return c.cmd }) {
		switch {
		case sr.err != nil && mongoerr.Is(sr.err, mongoerr.NamespaceNotFound):
		case sr.err != nil:
			return nil, sr.err
		case sr.shard == db.Primary || reply == nil:
			reply = sr.reply
		}
	}
	if reply == nil {
		return nil, mongoerr.New(mongoerr.NamespaceNotFound, "ns does not exist: %s", ns)
	}
	return reply, nil
}

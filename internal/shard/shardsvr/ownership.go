package shardsvr

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// Orphan filtering (MongoDB's ShardFilterer and SHARDING_FILTER stage): a
// versioned read of a sharded collection on this shard returns only the
// documents whose shard key falls in a chunk this shard owns, so a
// document written straight to the shard in another shard's range (or
// left behind by a migration) is in no router result. The filter uses the
// routing table the version check just validated: ReadFilter runs after
// CheckShardVersion passed and refuses (StaleConfig) when the cached
// metadata has since moved to an incompatible version. Requests without a
// shardVersion, with UNSHARDED or IGNORED, or on an unsharded collection
// are not filtered (a client connected straight to the shard sees
// everything, as in MongoDB).

// ReadFilter returns the ownership filter for cmd run on db, whose
// shard version check has passed; nil when the read is not filtered.
func (s *State) ReadFilter(db string, cmd bson.D) (exec.OwnershipFilter, error) {
	svField, hasSV := bsonx.Get(cmd, "shardVersion")
	coll, isColl := cmd[0].Value.(string)
	if !hasSV || !isColl {
		return nil, nil
	}
	sv, err := ParseShardVersion(svField)
	if err != nil || isIgnored(sv) || sv.SameCollection(Unsharded) {
		return nil, err
	}
	ns := db + "." + coll
	meta, shard := s.cachedMeta(ns)
	if meta == nil || !meta.IsSharded() {
		return nil, nil
	}
	if wanted := meta.ShardVersion(shard); !compatible(wanted, sv) {
		return nil, staleConfig(ns, sv, &wanted, shard)
	}
	return ownership{cm: meta.Manager(), shard: shard}, nil
}

// ownership owns the documents whose shard key is in one of shard's
// chunks of cm.
type ownership struct {
	cm    *routing.ChunkManager
	shard string
}

// Owns extracts doc's shard key (the hashed field hashed) and looks up
// its chunk. A document without a valid shard key (an array on the key's
// path) is not owned: MongoDB's SHARDING_FILTER skips it too.
func (o ownership) Owns(doc bson.D) (bool, error) {
	k, err := o.cm.Pattern().Extract(doc)
	if err != nil {
		return false, nil
	}
	c, err := o.cm.FindChunk(k)
	if err != nil {
		return false, fmt.Errorf("shard filter: chunk of %v: %w", k, err)
	}
	return c.Shard == o.shard, nil
}

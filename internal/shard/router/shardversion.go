package router

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

func init() {
	localCommands["getShardVersion"] = handler{fn: getShardVersion, adminOnly: true}
	localCommands["getshardversion"] = handler{fn: getShardVersion, adminOnly: true}
}

// getShardVersion is mongos' {getShardVersion: "db.coll"[, fullMetadata]}:
// the collection version from the router's routing table (version as
// Timestamp(major, minor), versionEpoch, versionTimestamp; with
// fullMetadata the chunks' [min, max] pairs, left out with exceededSize
// when they would not fit in a reply). {getShardVersion: "db"} gives the
// database's primaryShard and version. An unsharded collection is
// NamespaceNotSharded (118), an unknown database NamespaceNotFound (26).
func getShardVersion(c *call) (bson.D, error) {
	ns, ok := c.cmd[0].Value.(string)
	if !ok {
		return nil, mongoerr.New(mongoerr.BadValue, "namespace has invalid type %s", typeName(c.cmd[0].Value))
	}
	dbName, coll, _ := strings.Cut(ns, ".")
	if dbName == "" {
		return nil, mongoerr.New(mongoerr.InvalidNamespace, "Invalid namespace specified '%s'", ns)
	}
	if coll == "" {
		return databaseShardVersion(c, dbName)
	}
	cm, err := c.r.catalog.get(c.ctx, ns)
	if err != nil {
		return nil, err
	}
	if cm == nil {
		return nil, mongoerr.New(mongoerr.NamespaceNotSharded, "Collection %s is not sharded.", ns)
	}
	v := cm.CollectionVersion()
	out := bson.D{
		{Key: "version", Value: v.Lastmod()},
		{Key: "versionEpoch", Value: v.Epoch},
		{Key: "versionTimestamp", Value: v.Timestamp},
	}
	if truthy(c.cmd, "fullMetadata") {
		out = append(out, chunkBounds(cm)...)
	}
	return out, nil
}

// databaseShardVersion answers getShardVersion for a database name.
func databaseShardVersion(c *call, db string) (bson.D, error) {
	d, found, err := c.r.database(c.ctx, db, false)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, mongoerr.New(mongoerr.NamespaceNotFound, "database %s not found", db)
	}
	return bson.D{{Key: "primaryShard", Value: d.Primary}, {Key: "version", Value: d.Version.Doc()}}, nil
}

// chunkBounds is fullMetadata's {chunks: [[min, max], ...]}, or
// {exceededSize: true} when the pairs would pass the BSON size limit.
func chunkBounds(cm *routing.ChunkManager) bson.D {
	const room = 16*1024*1024 - 1024 // a reply's limit less its other fields
	chunks := bson.A{}
	size := 0
	for _, ch := range cm.Chunks() {
		pair := bson.A{ch.Min, ch.Max}
		b, err := bson.Marshal(bson.D{{Key: "p", Value: pair}})
		if err != nil || size+len(b) > room {
			return bson.D{{Key: "exceededSize", Value: true}}
		}
		size += len(b)
		chunks = append(chunks, pair)
	}
	return bson.D{{Key: "chunks", Value: chunks}}
}

package command

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
	"github.com/relaydb/relaydb/internal/shard/routing"
	"github.com/relaydb/relaydb/internal/shard/shardsvr"
)

// configsvrCommitChunkMigration commits a migration's new placement in
// config.chunks (configsvr.Catalog.CommitChunkMigration) and answers
// {shardVersion, collectionVersion}: the donor's placement version after
// it (0|0 when it owns no chunk left) and the collection's, as MongoDB
// 7.0 does. Only a config server member runs it (IllegalOperation
// elsewhere, as MongoDB); its metadata writes use the request's write
// concern made majority. validAfter is accepted and, as in 7.0, the
// config server's own clock dates the new history entry. A write concern
// not met fails the command (code of the writeConcernError) where MongoDB
// answers ok:1 with a writeConcernError: TODO(#14).
func configsvrCommitChunkMigration(c *Ctx, r *request.ConfigsvrCommitChunkMigration) (bson.D, error) {
	cat, ctx, cancel, err := c.configCatalog()
	if err != nil {
		return nil, err
	}
	defer cancel()
	collVersion, err := shardsvr.ParseShardVersion(r.FromShardCollectionVersion)
	if err != nil {
		return nil, err
	}
	chunk, err := migratedChunk(r.MigratedChunk)
	if err != nil {
		return nil, err
	}
	if r.FromShard == "" || r.ToShard == "" {
		return nil, mongoerr.New(mongoerr.BadValue, "fromShard and toShard must name shards")
	}
	v, err := cat.CommitChunkMigration(ctx, r.NS, chunk, r.FromShard, r.ToShard, collVersion)
	if err != nil {
		return nil, err
	}
	return bson.D{
		{Key: "shardVersion", Value: shardsvr.ShardVersionDoc(v.Shard)},
		{Key: "collectionVersion", Value: shardsvr.ShardVersionDoc(v.Collection)},
	}, nil
}

// configsvrEnsureChunkVersionIsGreaterThan fences a migration commit
// (configsvr.Catalog.EnsureChunkVersionIsGreaterThan); on a config server
// member only.
func configsvrEnsureChunkVersionIsGreaterThan(c *Ctx, r *request.ConfigsvrEnsureChunkVersionIsGreaterThan) (bson.D, error) {
	cat, ctx, cancel, err := c.configCatalog()
	if err != nil {
		return nil, err
	}
	defer cancel()
	version, err := shardsvr.ParseShardVersion(r.Version)
	if err != nil {
		return nil, err
	}
	uuid, ok := r.CollectionUUID.(bson.Binary)
	if !ok || uuid.Subtype != bson.TypeBinaryUUID {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "collectionUUID must be a UUID")
	}
	if err := cat.EnsureChunkVersionIsGreaterThan(ctx, uuid, r.MinKey, r.MaxKey, version); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}

// configCatalog is the catalog a config server member's _configsvr*
// commands write through (this member, as primary) and the context
// carrying the request's write concern made majority.
func (c *Ctx) configCatalog() (*configsvr.Catalog, context.Context, context.CancelFunc, error) {
	if c.D.info.ClusterRole != "configsvr" {
		return nil, nil, nil, mongoerr.New(mongoerr.IllegalOperation, "%s can only be run on config servers", c.Name)
	}
	wc, err := configsvr.MajorityWriteConcern(c.Cmd)
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := c.replContext()
	if wc != nil {
		ctx = configsvr.WithWriteConcern(ctx, wc)
	}
	return configsvr.NewCatalog(localRunner{d: c.D}), ctx, cancel, nil
}

// migratedChunk reads migratedChunk: {min, max, lastmod: {e, t, v}}.
func migratedChunk(d bson.D) (routing.Chunk, error) {
	lo, okMin := bsonx.Get(d, "min")
	hi, okMax := bsonx.Get(d, "max")
	var ch routing.Chunk
	ch.Min, _ = lo.(bson.D)
	ch.Max, _ = hi.(bson.D)
	if !okMin || !okMax || ch.Min == nil || ch.Max == nil {
		return ch, mongoerr.New(mongoerr.NoSuchKey, "migratedChunk needs min and max objects")
	}
	if lm, ok := bsonx.Get(d, "lastmod"); ok {
		v, err := shardsvr.ParseShardVersion(lm)
		if err != nil {
			return ch, err
		}
		ch.Lastmod = v
	}
	return ch, nil
}

// localRunner runs the catalog's commands on this member through the
// dispatcher (so they take the same checks, locks and write concern
// waits as a client's).
type localRunner struct{ d *Dispatcher }

func (l localRunner) Run(ctx context.Context, db string, cmd bson.D) (bson.D, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := l.d.run(l.d.internalConn(), db, cmd, &Request{})
	var reply bson.D
	if err := bson.Unmarshal(out, &reply); err != nil {
		return nil, fmt.Errorf("command: local %s reply: %w", cmd[0].Key, err)
	}
	if ok, _ := bsonx.Get(reply, "ok"); asFloat(ok) == 1 {
		return reply, nil
	}
	code, _ := bsonx.Get(reply, "code")
	n, _ := bsonx.AsInt64(code)
	msg, _ := bsonx.Get(reply, "errmsg")
	return nil, mongoerr.New(mongoerr.Code(n), "%v", msg)
}

func asFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int32:
		return float64(x)
	case int64:
		return float64(x)
	}
	return 0
}

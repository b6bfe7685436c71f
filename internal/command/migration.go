package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/shardsvr"
)

// The chunk migration commands of a shard's primary (shardsvr.Migrations;
// docs/sharding.md "Chunk migration"). Elsewhere they are
// ShardingStateNotInitialized, as a shard command on a non-shard is.

func migrations(c *Ctx, cmd string) (*shardsvr.Migrations, error) {
	if c.D.repl != nil {
		if err := c.D.repl.CheckWrite("admin"); err != nil {
			return nil, err // a migration runs on the shard's primary only
		}
	}
	if m, ok := c.D.shardVersioner.(interface{ MigrationService() *shardsvr.Migrations }); ok && m.MigrationService() != nil {
		return m.MigrationService(), nil
	}
	return nil, mongoerr.New(mongoerr.ShardingStateNotInitialized, "%s needs a shard (--shardsvr)", cmd)
}

// shardsvrMoveRange runs a migration from this shard to its end.
func shardsvrMoveRange(c *Ctx, r *request.ShardsvrMoveRange) (bson.D, error) {
	m, err := migrations(c, "_shardsvrMoveRange")
	if err != nil {
		return nil, err
	}
	if err := checkNS(r.NS); err != nil {
		return nil, err
	}
	ctx, cancel := c.replContext()
	defer cancel()
	res, err := m.MoveRange(ctx, shardsvr.MoveRangeRequest{NS: r.NS, ToShard: r.ToShard, Min: r.Min, Max: r.Max, WaitForDelete: r.WaitForDelete})
	if err != nil {
		return nil, waitError(err, "_shardsvrMoveRange")
	}
	return bson.D{
		{Key: "millis", Value: res.Elapsed.Milliseconds()},
		{Key: "criticalSectionMillis", Value: res.Critical.Milliseconds()},
		{Key: "counts", Value: bson.D{{Key: "cloned", Value: res.Stats.Docs}, {Key: "clonedBytes", Value: res.Stats.Bytes},
			{Key: "reloaded", Value: res.Stats.Reloaded}, {Key: "deleted", Value: res.Stats.Deleted}}},
	}, nil
}

func migrateClone(c *Ctx, r *request.MigrateClone) (bson.D, error) {
	m, err := migrations(c, "_migrateClone")
	if err != nil {
		return nil, err
	}
	docs, err := m.MigrateClone(r.SessionID)
	if err != nil {
		return nil, err
	}
	arr := make(bson.A, len(docs))
	for i, d := range docs {
		arr[i] = d
	}
	return bson.D{{Key: "objects", Value: arr}}, nil
}

func transferMods(c *Ctx, r *request.TransferMods) (bson.D, error) {
	m, err := migrations(c, "_transferMods")
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.replContext()
	defer cancel()
	mods, err := m.TransferMods(ctx, r.SessionID, r.Final)
	if err != nil {
		return nil, err
	}
	reload := make(bson.A, len(mods.Reload))
	for i, d := range mods.Reload {
		reload[i] = d
	}
	return bson.D{{Key: "deleted", Value: bson.A(mods.Deleted)}, {Key: "reload", Value: reload},
		{Key: "size", Value: int64(mods.Size)}, {Key: "more", Value: mods.More}}, nil
}

func recvChunkStart(c *Ctx, r *request.RecvChunkStart) (bson.D, error) {
	m, err := migrations(c, "_recvChunkStart")
	if err != nil {
		return nil, err
	}
	if err := checkNS(r.NS); err != nil {
		return nil, err
	}
	p, err := key.Parse(r.ShardKeyPattern)
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.replContext()
	defer cancel()
	err = m.RecvChunkStart(ctx, shardsvr.RecvStart{SessionID: r.SessionID, NS: r.NS, FromShard: r.FromShardName, From: r.From,
		Min: r.Min, Max: r.Max, Key: p, Indexes: r.Indexes, Options: r.CollectionOptions})
	if err != nil {
		return nil, err
	}
	return bson.D{{Key: "started", Value: true}}, nil
}

func recvChunkStatus(c *Ctx, r *request.RecvChunkStatus) (bson.D, error) {
	m, err := migrations(c, "_recvChunkStatus")
	if err != nil {
		return nil, err
	}
	return m.RecvChunkStatus(r.SessionID)
}

func recvChunkCommit(c *Ctx, r *request.RecvChunkCommit) (bson.D, error) {
	m, err := migrations(c, "_recvChunkCommit")
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.replContext()
	defer cancel()
	if err := m.RecvChunkCommit(ctx, r.SessionID); err != nil {
		return nil, err
	}
	return m.RecvChunkStatus(r.SessionID)
}

func recvChunkAbort(c *Ctx, r *request.RecvChunkAbort) (bson.D, error) {
	m, err := migrations(c, "_recvChunkAbort")
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.replContext()
	defer cancel()
	return bson.D{}, m.RecvChunkAbort(ctx, r.SessionID, r.NS, r.Min, r.Max)
}

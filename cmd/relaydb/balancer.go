package main

import (
	"context"
	"log/slog"

	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/config"
	"github.com/relaydb/relaydb/internal/shard/balancer"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
)

// startBalancer gives a shard member (--shardsvr) its load sampler
// (reported by _shardsvrGetStatsForBalancing) and runs the balancer on a
// config server member (--configsvr) for the life
// of the process; it balances only while this member is primary (it asks
// before each round and during one), so a step-down stops it and the new
// primary's loop takes over. Its config reads and split commits go
// through this member's own dispatcher; its shard commands through a
// pool of its own.
func startBalancer(cfg *config.Serve, disp *command.Dispatcher, log *slog.Logger) (stop func()) {
	if cfg.ClusterRole == config.RoleShardServer {
		disp.SetLoadSampler(command.NewLoadSampler(nil))
	}
	if cfg.ClusterRole != config.RoleConfigServer {
		return func() {}
	}
	pool := memberPool(cfg, log)
	shards := balancer.NewNetShards(pool)
	b := balancer.New(balancer.Options{
		Cluster: balancer.NewConfigCluster(disp.LocalRunner()),
		Shards:  shards,
		IsPrimary: func() bool {
			r := disp.Replication()
			return r == nil || r.CheckWrite(configsvr.DB) == nil
		},
		Logger: log.With("component", "balancer"),
	})
	disp.SetBalancer(b)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); b.Run(ctx) }()
	return func() { cancel(); <-done; shards.Close(); pool.Close() }
}

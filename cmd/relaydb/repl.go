package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/config"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl"
	"github.com/relaydb/relaydb/internal/session"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
	"github.com/relaydb/relaydb/internal/shard/shardsvr"
)

// startReplication starts the replica-set coordinator when --replSet is
// given and attaches it to disp; stop shuts it down. Call it after the
// catalog is open and before the server accepts connections.
func startReplication(cfg *config.Serve, cat *catalog.Catalog, disp *command.Dispatcher, log *slog.Logger) (stop func(), err error) {
	if cfg.ReplSet == "" {
		return func() {}, nil
	}
	pool := memberPool(cfg, log)
	self := selfHost(cfg)
	coord, err := repl.New(repl.Options{
		Catalog: cat, Self: self, SetName: cfg.ReplSet, Transport: pool, Logger: log,
		NewSyncer: repl.NewSyncLoop(repl.SyncOptions{
			Catalog: cat, Logger: log,
			Observe:  observeRetryable(disp.Engine().Sessions()),
			Rollback: repl.RollbackHook(repl.RollbackOptions{Catalog: cat, Engine: disp.Engine(), DBPath: cfg.DBPath, Logger: log}),
			Dial:     func(ctx context.Context, host string) (repl.SourceConn, error) { return pool.Dial(ctx, host) },
		}),
	})
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("replication: %w", err)
	}
	disp.SetReplication(coord)
	coord.Start()
	log.Info("replication started", "replSet", cfg.ReplSet, "me", self)
	return func() {
		coord.Stop()
		pool.Close()
	}, nil
}

// selfHost is the name this member has in the config: the first bind
// address (loopback when binding every interface) and the port.
func selfHost(cfg *config.Serve) string {
	ip := "127.0.0.1"
	if first, _, _ := strings.Cut(cfg.BindIP, ","); first != "" {
		first = strings.TrimSpace(first)
		if first != "0.0.0.0" && first != "::" {
			ip = first
		}
	}
	return net.JoinHostPort(ip, strconv.Itoa(cfg.Port))
}

// observeRetryable records the retryable writes applied entries carry,
// so this member recognises their retries if it becomes primary.
func observeRetryable(sessions *session.Table) func([]*oplog.Entry) {
	return func(entries []*oplog.Entry) {
		for _, e := range entries {
			if len(e.Extra) > 0 {
				sessions.Observe(e.Doc())
			}
		}
	}
}

// startSharding attaches a shard's version check to disp when this member
// is a shard (--shardsvr): it learns its name and the config servers from
// the shardIdentity document addShard writes, and reads their metadata
// over its own pool; stop closes the pool.
func startSharding(cfg *config.Serve, disp *command.Dispatcher, log *slog.Logger) (stop func()) {
	if cfg.ClusterRole != config.RoleShardServer {
		return func() {}
	}
	pool := memberPool(cfg, log)
	state := shardsvr.New(shardsvr.Options{
		Identity: shardsvr.LocalIdentity(disp.Engine()),
		Connect: func(conn string) shardsvr.Source {
			return configsvr.NewCatalog(configsvr.NewPrimaryRunner(pool, conn))
		},
		Logger: log,
	})
	ranges := startRangeDeleter(disp, state, log)
	migs := shardsvr.NewMigrations(shardsvr.MigrationOptions{State: state, Eng: disp.Engine(), Pool: pool,
		Store: ranges.store, Ranges: ranges.rd, IsPrimary: ranges.isPrimary, Logger: log})
	disp.SetShardVersioner(shardsvr.WithMigrations{WithRanges: shardsvr.WithRanges{State: state, Ranges: ranges.rd}, Migrations: migs})
	disp.Engine().SetKeyGuard(state.KeyGuard())
	if coord, ok := disp.Replication().(interface{ SetStepUpHook(func()) }); ok {
		coord.SetStepUpHook(migs.HoldPendingMigrations)
		if disp.Replication().CheckWrite("admin") == nil {
			migs.HoldPendingMigrations() // primary already: the recovery releases them
		}
	}
	rctx, cancel := context.WithCancel(context.Background())
	recovered := make(chan struct{})
	go func() { defer close(recovered); migs.RunRecovery(rctx) }()
	return func() { cancel(); <-recovered; ranges.stop(); migs.Close(); pool.Close() }
}

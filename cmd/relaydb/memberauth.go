package main

import (
	"fmt"
	"log/slog"

	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/config"
	"github.com/relaydb/relaydb/internal/netclient"
)

// memberCredential is what this process's node-to-node pools log in with
// (__system@local with the key file's first key); nil without a key file.
// setupMemberAuth sets it once, before any pool is made.
var memberCredential *netclient.Credential

// setupMemberAuth turns authentication on as configured and, with a key
// file, lets __system@local log in to disp and makes the member pools log
// in as it. A key file that cannot be used stops the start.
func setupMemberAuth(cfg *config.Serve, disp *command.Dispatcher, log *slog.Logger) error {
	disp.SetAuth(cfg.AuthRequired())
	if cfg.KeyFile == "" {
		return nil
	}
	kf, err := auth.LoadKeyFile(cfg.KeyFile)
	if err != nil {
		return err
	}
	if err := disp.SetKeyFile(kf); err != nil {
		return err
	}
	cred, err := netclient.KeyFileCredential(kf)
	if err != nil {
		return fmt.Errorf("key file %s: %w", kf.Path, err)
	}
	memberCredential = cred
	log.Info("member authentication", "clusterAuthMode", cfg.EffectiveClusterAuthMode(), "keyFile", kf.Path, "keys", len(kf.Keys))
	return nil
}

// memberPool is a node-to-node pool: the simulated latencies and the
// member credential.
func memberPool(cfg *config.Serve, log *slog.Logger) *netclient.Pool {
	return netclient.NewPool(netclient.Options{Logger: log, Latency: cfg.SimulatedLatency, LatencyTo: cfg.SimulatedLatencyTo, Auth: memberCredential, TLS: memberTLS})
}

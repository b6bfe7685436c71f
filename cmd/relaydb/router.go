package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/config"
	"github.com/relaydb/relaydb/internal/js"
	"github.com/relaydb/relaydb/internal/netclient"
	"github.com/relaydb/relaydb/internal/server"
	"github.com/relaydb/relaydb/internal/shard/router"
)

// routerMain runs `relaydb router`, the query router of a sharded cluster
// (mongos): relaydb router --configdb cfg/host:port[,...] --port N.
func routerMain(args []string) int {
	cfg := &config.Router{}
	fs := flag.NewFlagSet("relaydb router", flag.ContinueOnError)
	config.BindRouterFlags(fs, cfg)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitBadOptions
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "relaydb router: unexpected argument %q\n", fs.Arg(0))
		return exitBadOptions
	}
	if err := config.ResolveRouter(fs, cfg); err != nil {
		fmt.Fprintf(os.Stderr, "relaydb router: %v\n", err)
		return exitBadOptions
	}
	// The logger takes a data node's log options; the router has the same.
	log, closeLog, err := newLogger(&config.Serve{LogPath: cfg.LogPath, LogAppend: cfg.LogAppend, LogVerbosity: cfg.LogVerbosity})
	if err != nil {
		fmt.Fprintf(os.Stderr, "relaydb router: %v\n", err)
		return exitBadOptions
	}
	defer closeLog()
	return runRouter(cfg, log)
}

func runRouter(cfg *config.Router, log *slog.Logger) int {
	log.Info("relaydb router starting", "version", Version, "pid", os.Getpid(), "port", cfg.Port, "configdb", cfg.ConfigDB)
	for _, w := range cfg.Warnings {
		log.Warn("configuration", "warning", w)
	}
	defer startProfile(log, cfg.Port)()
	js.SetEnabled(!cfg.NoScripting) // --noscripting
	stop := newStopRequest()
	cred, err := routerCredential(cfg, log)
	if err != nil {
		fmt.Fprintf(os.Stderr, "relaydb router: %v\n", err)
		return exitBadOptions
	}
	srvTLS, err := setupTLS(cfg.TLS, log)
	if err != nil {
		fmt.Fprintf(os.Stderr, "relaydb router: %v\n", err)
		return exitBadOptions
	}
	if cfg.X509Members() { // the router presents its certificate to members
		cred = netclient.X509Credential()
	}
	mechs, err := authMechanisms(cfg.Parameters, srvTLS) // mechanisms.go
	if err != nil {
		fmt.Fprintf(os.Stderr, "relaydb router: %v\n", err)
		return exitBadOptions
	}
	command.SetCmdLine(parsedRouterOptions(cfg))
	r, err := router.New(router.Options{
		TLS: memberTLS, ConfigDB: cfg.ConfigDB, Version: Version, GitCommit: gitCommit, Logger: log,
		Shutdown: stop.Request, Auth: cfg.AuthRequired(), Credential: cred,
		UserCacheInvalidationIntervalSecs: cfg.UserCacheInterval(), AuthMechanisms: mechs,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "relaydb router: %v\n", err)
		return exitBadOptions
	}
	defer r.Close()
	r.StartUptimeReporter(cfg.Port) // config.mongos, as mongos keeps it
	allow, err := routerAllowlist(cfg, r)
	if err != nil {
		fmt.Fprintf(os.Stderr, "relaydb router: %v\n", err)
		return exitBadOptions
	}
	srv := server.New(server.Config{Addrs: bindAddrs(cfg.BindIP, cfg.Port), MaxConns: cfg.MaxConns, Logger: log, Allowlist: allow, TLS: srvTLS}, r)
	return serveUntilStopped("relaydb router", srv, stop, r.BeginShutdown, log)
}

// routerCredential loads the key file, if any: the router logs in to the
// config servers and shards as __system with it, and clients must
// authenticate (as mongos with --keyFile).
func routerCredential(cfg *config.Router, log *slog.Logger) (*netclient.Credential, error) {
	if cfg.KeyFile == "" {
		return nil, nil
	}
	kf, err := auth.LoadKeyFile(cfg.KeyFile)
	if err != nil {
		return nil, err
	}
	cred, err := netclient.KeyFileCredential(kf)
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", cfg.KeyFile, err)
	}
	log.Info("authentication", "clusterAuthMode", cfg.EffectiveClusterAuthMode(), "keyFile", kf.Path, "keys", len(kf.Keys))
	return cred, nil
}

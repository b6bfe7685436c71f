package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/relaydb/relaydb/internal/agg"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/config"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/js"
	"github.com/relaydb/relaydb/internal/repl/applier"
	"github.com/relaydb/relaydb/internal/repl/markers"
	"github.com/relaydb/relaydb/internal/server"
	"github.com/relaydb/relaydb/internal/storage"
)

// shutdownGrace bounds how long in-flight requests may finish on SIGTERM.
const shutdownGrace = 10 * time.Second

func serve(args []string) int {
	cfg := &config.Serve{}
	fs := flag.NewFlagSet("relaydb serve", flag.ContinueOnError)
	config.BindFlags(fs, cfg)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitBadOptions
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "relaydb serve: unexpected argument %q\n", fs.Arg(0))
		return exitBadOptions
	}
	if err := config.Resolve(fs, cfg); err != nil {
		fmt.Fprintf(os.Stderr, "relaydb serve: %v\n", err)
		return exitBadOptions
	}
	log, closeLog, err := newLogger(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "relaydb serve: %v\n", err)
		return exitBadOptions
	}
	defer closeLog()
	fresh := freshDBPath(cfg) // freshdir.go
	code := run(cfg, log)
	if code != exitOK && fresh {
		discardFresh(cfg.DBPath, log)
	}
	return code
}

func run(cfg *config.Serve, log *slog.Logger) int {
	log.Info("relaydb starting", "version", Version, "pid", os.Getpid(), "dbpath", cfg.DBPath, "port", cfg.Port)
	for _, w := range cfg.Warnings {
		log.Warn("configuration", "warning", w)
	}
	lns, code := bindFirst(cfg, log) // bindfirst.go: before the dbpath is touched
	if lns == nil {
		return code
	}
	defer closeListeners(lns)
	blockMB, docMB := cfg.CacheSplitMB(config.Machine) // config/cache.go
	log.Info("storage caches", "blockCacheMB", blockMB, "documentCacheMB", docMB)
	cat, err := catalog.Open(catalog.Options{
		Storage: storage.Options{Dir: cfg.DBPath, InMemory: cfg.InMemory, CommitInterval: cfg.JournalCommitInterval, Logger: log,
			CacheSizeMB: blockMB, DocCacheMB: docMB},
		OplogSizeMB: cfg.OplogSizeMB,
		TTLInterval: cfg.TTLMonitorSleep(),
		Logger:      log,
	})
	if err != nil {
		if errors.Is(err, storage.ErrLocked) {
			log.Error("dbpath is in use by another relaydb process", "dbpath", cfg.DBPath, "err", err)
			fmt.Fprintf(os.Stderr, "relaydb serve: the dbpath %s is locked by another relaydb process (%v)\n", cfg.DBPath, err)
			return exitDBPathInUse
		}
		log.Error("cannot open storage", "dbpath", cfg.DBPath, "err", err)
		fmt.Fprintf(os.Stderr, "relaydb serve: cannot open dbpath %s: %v\n", cfg.DBPath, err)
		return exitError
	}
	defer cat.Close()
	if err := markers.Recover(cat, log); err != nil {
		log.Error("cannot recover replication state", "dbpath", cfg.DBPath, "err", err)
		fmt.Fprintf(os.Stderr, "relaydb serve: cannot recover dbpath %s: %v\n", cfg.DBPath, err)
		return exitError
	}
	defer startProfile(log, cfg.Port)()
	eng := exec.New(cat, log)
	defer eng.Close()
	if err := setupEngine(cfg, eng); err != nil {
		log.Error("cannot prepare the executor", "err", err)
		fmt.Fprintf(os.Stderr, "relaydb serve: %v\n", err)
		return exitError
	}

	stop := newStopRequest()
	info := command.Info{Host: hostPort(cfg), Version: Version, GitCommit: gitCommit, StartTime: time.Now(), DBPath: cfg.DBPath, Shutdown: stop.Request, ClusterRole: cfg.ClusterRole}
	command.SetCmdLine(parsedServeOptions(cfg))
	disp := command.NewDispatcher(eng, info, log)
	if err := setupMemberAuth(cfg, disp, log); err != nil {
		log.Error("cannot set up authentication", "err", err)
		fmt.Fprintf(os.Stderr, "relaydb serve: %v\n", err)
		return exitError
	}
	srvTLS, err := setupTLS(cfg.TLS, log)
	if err != nil {
		log.Error("cannot set up TLS", "err", err)
		fmt.Fprintf(os.Stderr, "relaydb serve: %v\n", err)
		return exitBadOptions
	}
	setupX509Members(cfg, disp, log)
	mechs, err := authMechanisms(cfg.Parameters, srvTLS) // mechanisms.go
	if err != nil {
		fmt.Fprintf(os.Stderr, "relaydb serve: %v\n", err)
		return exitBadOptions
	}
	disp.SetAuthMechanisms(mechs)
	stopRepl, err := startReplication(cfg, cat, disp, log)
	if err != nil {
		log.Error("cannot start replication", "err", err)
		fmt.Fprintf(os.Stderr, "relaydb serve: %v\n", err)
		return exitError
	}
	defer stopRepl()
	defer startSharding(cfg, disp, log)()
	defer startBalancer(cfg, disp, log)()
	allow, err := serveAllowlist(cfg, disp)
	if err != nil {
		fmt.Fprintf(os.Stderr, "relaydb serve: %v\n", err)
		return exitError
	}
	stopMetrics, err := startMetrics(cfg, disp.Metrics(), log) // metrics_http.go
	if err != nil {
		log.Error("cannot serve metrics", "err", err)
		fmt.Fprintf(os.Stderr, "relaydb serve: %v\n", err)
		if errors.Is(err, server.ErrAddrInUse) {
			return exitNetError
		}
		return exitError
	}
	defer stopMetrics()
	srv := server.New(server.Config{Addrs: listenAddrs(cfg), Listeners: lns, MaxConns: cfg.MaxConns, MessageTimeout: cfg.MessageTimeout(), Logger: log, Allowlist: allow, TLS: srvTLS}, disp)
	return serveUntilStopped("relaydb serve", srv, stop, disp.BeginShutdown, log)
}

func listenAddrs(cfg *config.Serve) []string { return bindAddrs(cfg.BindIP, cfg.Port) }

func hostPort(cfg *config.Serve) string {
	host, _ := os.Hostname()
	return net.JoinHostPort(host, strconv.Itoa(cfg.Port))
}

// newLogger returns a JSON logger writing to stderr or cfg.LogPath.
func newLogger(cfg *config.Serve) (*slog.Logger, func(), error) {
	var w io.Writer = os.Stderr
	closeFn := func() {}
	if cfg.LogPath != "" {
		flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
		if cfg.LogAppend {
			flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
		}
		f, err := os.OpenFile(cfg.LogPath, flags, 0o644)
		if err != nil {
			return nil, nil, fmt.Errorf("open log file: %w", err)
		}
		w, closeFn = f, func() { f.Close() }
	}
	level := slog.LevelInfo
	if cfg.LogVerbosity > 0 {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})), closeFn, nil
}

// setupEngine applies the aggregation memory parameters given with
// --setParameter and makes <dbpath>/_tmp the spill directory (cleared of
// what a previous process left there).
func setupEngine(cfg *config.Serve, eng *exec.Engine) error {
	js.SetEnabled(!cfg.NoScripting) // --noscripting
	if n := cfg.ReplWriterThreadCount(); n > 0 {
		applier.SetWriterThreadCount(n) // startup-only, as mongod's
	}
	for _, name := range agg.ParamNames() {
		v, ok := cfg.Parameters[name]
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("--setParameter %s=%s: not an integer", name, v)
		}
		if _, _, err := agg.SetParameter(name, n); err != nil {
			return fmt.Errorf("--setParameter %s: %w", name, err)
		}
	}
	if cfg.InMemory {
		return nil
	}
	if err := eng.SetTempDir(filepath.Join(cfg.DBPath, "_tmp")); err != nil {
		return fmt.Errorf("clearing the temporary directory: %w", err)
	}
	return nil
}

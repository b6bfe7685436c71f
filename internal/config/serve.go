// Package config holds one configuration struct per relaydb role, each field
// documented with its default, in the manner of pebble's Options and
// hashicorp/raft's Config.
//
// Invariants:
//   - A zero field means "use the default"; EnsureDefaults fills every such
//     field, so a zero Serve after EnsureDefaults is the documented default
//     configuration (127.0.0.1:27017, ./data, durable).
//   - Precedence is mongod's: explicit command-line flags > config file >
//     defaults (see Resolve).
//   - Validate never changes the struct; it reports every problem at once,
//     each naming the option as the user spelled it.
package config

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/relaydb/relaydb/internal/tlsconf"
)

// Defaults of Serve.
const (
	DefaultPort                  = 27017
	DefaultBindIP                = "127.0.0.1"
	DefaultDBPath                = "./data"
	DefaultJournalCommitInterval = 100 * time.Millisecond
	DefaultOplogSizeMB           = 1024
	DefaultMaxConns              = 1_000_000

	MinJournalCommitInterval = time.Millisecond
	MaxJournalCommitInterval = 500 * time.Millisecond
	MaxLogVerbosity          = 5
	maxOplogSizeMB           = 1 << 30 // 1 PB, as mongod
)

// Serve configures `relaydb serve`, a data node (mongod's role).
type Serve struct {
	// SimulatedLatency is a one-way delay relaydb adds to every
	// node-to-node message (heartbeats, oplog fetches, position reports),
	// to give members network distance where netem is unavailable.
	// Default 0. Flag --simulatedLatency (a Go duration, e.g. 100us).
	SimulatedLatency time.Duration
	// SimulatedLatencyTo overrides SimulatedLatency per peer ("host:port"),
	// so members sit at different distances. Flag --simulatedLatencyTo
	// host=duration[,host=duration...].
	SimulatedLatencyTo map[string]time.Duration

	// Parameters are server parameters from --setParameter name=value
	// (mongod's syntax); see knownParameters.
	Parameters map[string]string

	// Auth turns on authentication (SCRAM users, docs/security.md).
	// Default false. Flag --auth, YAML security.authorization. With
	// ReplSet or ClusterRole it needs member authentication (KeyFile).
	// Use AuthRequired, which a KeyFile turns on too.
	Auth bool
	// KeyFile is the member key file: members log in to each other as
	// __system@local with its key; it implies Auth. Default "". Flag
	// --keyFile, YAML security.keyFile (security.go).
	KeyFile string
	// ClusterAuthMode is how members authenticate to each other: keyFile
	// (the default with a KeyFile), sendKeyFile, sendX509 or x509; only
	// keyFile is implemented. Flag --clusterAuthMode, YAML
	// security.clusterAuthMode.
	ClusterAuthMode string
	// NoScripting disables server-side JavaScript ($where, $function,
	// $accumulator answer mongod's no-script-engine errors). Default
	// false. Flag --noscripting, YAML security.javascriptEnabled: false.
	NoScripting bool

	// IPAllowlist limits the addresses clients may connect from
	// (allowlist.go). Default: no limit.
	IPAllowlist IPAllowlist

	// TLS is net.tls.* (flags --tls*): disabled by default (tls.go).
	TLS tlsconf.Options

	// Port to listen on. Default 27017. YAML net.port, flag --port.
	Port int
	// BindIP is a comma-separated list of addresses to listen on.
	// Default "127.0.0.1". YAML net.bindIp, flag --bind_ip.
	BindIP string
	// DBPath is the data directory. Default "./data". Ignored when
	// InMemory. YAML storage.dbPath, flag --dbpath.
	DBPath string
	// JournalCommitInterval is the longest a j:false write waits to be
	// synced. Default 100ms, valid 1-500ms (MongoDB's
	// storage.journal.commitIntervalMs). Flag --journalCommitInterval (ms).
	JournalCommitInterval time.Duration
	// OplogSizeMB caps the oplog. Default 1024 (mongod picks 5% of free
	// disk; relaydb keeps a fixed default so tests are reproducible).
	// YAML replication.oplogSizeMB, flag --oplogSize.
	OplogSizeMB int
	// LogPath is the log file; "" logs to stderr. Default "".
	// YAML systemLog.path, flag --logpath.
	LogPath string
	// LogAppend appends to LogPath instead of rotating it at start.
	// Default false. YAML systemLog.logAppend, flag --logappend.
	LogAppend bool
	// LogVerbosity is 0 (default) to 5. YAML systemLog.verbosity.
	LogVerbosity int
	// MaxConns limits simultaneous client connections. Default 1000000.
	// YAML net.maxIncomingConnections, flag --maxConns.
	MaxConns int
	// ReplSet is the replica set name; "" runs standalone. Default "".
	// YAML replication.replSetName, flag --replSet.
	ReplSet string
	// ClusterRole is "" (default: not part of a sharded cluster),
	// "configsvr" or "shardsvr"; either needs ReplSet. YAML
	// sharding.clusterRole, flags --configsvr and --shardsvr (sharding.go).
	ClusterRole string
	// MetricsPort serves Prometheus metrics over HTTP; 0 (default) is off.
	// YAML relaydb.metricsPort, flag --metricsPort.
	MetricsPort int
	// CacheSizeMB is the storage cache budget (Pebble's block cache plus
	// the document cache) in MB; 0 (default) sizes it from the machine
	// (CacheBudgetMB, cache.go). YAML relaydb.cacheSizeMB, flag
	// --cacheSizeMB.
	CacheSizeMB int
	// WiredTigerCacheSizeGB is the same budget by mongod's name, in GB
	// (0.25-10000); nil when unset. YAML
	// storage.wiredTiger.engineConfig.cacheSizeGB, flag
	// --wiredTigerCacheSizeGB.
	WiredTigerCacheSizeGB *float64
	// InMemory keeps data in memory only (tests). Default false.
	// YAML relaydb.inMemory, flag --inMemory.
	InMemory bool

	// ConfigPath is the YAML file read by Resolve; "" reads none.
	// Flag --config.
	ConfigPath string
	// Warnings collects notes from loading (options accepted but ignored
	// or approximated) for the server to log at start.
	Warnings []string
}

// EnsureDefaults replaces zero fields with their defaults.
func (s *Serve) EnsureDefaults() {
	if s.Port == 0 {
		s.Port = DefaultPort
	}
	if s.BindIP == "" {
		s.BindIP = DefaultBindIP
	}
	if s.DBPath == "" {
		s.DBPath = DefaultDBPath
	}
	if s.JournalCommitInterval == 0 {
		s.JournalCommitInterval = DefaultJournalCommitInterval
	}
	if s.OplogSizeMB == 0 {
		s.OplogSizeMB = DefaultOplogSizeMB
	}
	if s.MaxConns == 0 {
		s.MaxConns = DefaultMaxConns
	}
}

// Validate reports every invalid field, joined into one error.
func (s *Serve) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if s.Port < 1 || s.Port > 65535 {
		bad("port %d is out of range (1-65535)", s.Port)
	}
	if err := validateBindIP(s.BindIP); err != nil {
		errs = append(errs, err)
	}
	if err := s.IPAllowlist.validate(); err != nil {
		errs = append(errs, err)
	}
	if err := s.validateSecurity(); err != nil {
		errs = append(errs, err)
	}
	if s.DBPath == "" && !s.InMemory {
		bad("dbpath must not be empty")
	}
	if d := s.JournalCommitInterval; d < MinJournalCommitInterval || d > MaxJournalCommitInterval {
		bad("journalCommitInterval %v is out of range (1-500ms)", d)
	}
	if s.OplogSizeMB < 1 || s.OplogSizeMB > maxOplogSizeMB {
		bad("oplogSize %dMB is out of range (1MB-1PB)", s.OplogSizeMB)
	}
	if s.LogVerbosity < 0 || s.LogVerbosity > MaxLogVerbosity {
		bad("systemLog.verbosity %d is out of range (0-%d)", s.LogVerbosity, MaxLogVerbosity)
	}
	if s.MaxConns < 1 {
		bad("maxConns %d must be at least 1", s.MaxConns)
	}
	if s.MetricsPort < 0 || s.MetricsPort > 65535 {
		bad("metricsPort %d is out of range (0-65535, 0 = off)", s.MetricsPort)
	} else if s.MetricsPort != 0 && s.MetricsPort == s.Port {
		bad("metricsPort %d must differ from port", s.MetricsPort)
	}
	if strings.ContainsAny(s.ReplSet, "/, \t") {
		bad("replSet %q must be a bare name (no seed list, spaces or commas)", s.ReplSet)
	}
	if err := s.validateCache(); err != nil { // cache.go
		errs = append(errs, err)
	}
	if err := s.validateReplWriters(); err != nil { // repl_writers.go
		errs = append(errs, err)
	}
	if err := s.validateSharding(); err != nil {
		errs = append(errs, err)
	}
	if err := s.TLS.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func validateBindIP(list string) error {
	if strings.TrimSpace(list) == "" {
		return errors.New("bind_ip must not be empty")
	}
	for _, ip := range strings.Split(list, ",") {
		ip = strings.TrimSpace(ip)
		if ip == "" || strings.ContainsAny(ip, " \t") {
			return fmt.Errorf("bind_ip %q has an empty or malformed entry", list)
		}
	}
	return nil
}

// BindAddrs returns the BindIP entries, trimmed.
func (s *Serve) BindAddrs() []string {
	var out []string
	for _, ip := range strings.Split(s.BindIP, ",") {
		if ip = strings.TrimSpace(ip); ip != "" {
			out = append(out, ip)
		}
	}
	return out
}

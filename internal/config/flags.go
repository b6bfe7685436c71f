package config

import (
	"flag"
	"fmt"
	"github.com/relaydb/relaydb/internal/agg"
	"strconv"
	"strings"
	"time"
)

// BindFlags registers mongod's flag names on fs, bound to s's fields. It
// calls s.EnsureDefaults first so the flags' defaults are the documented
// ones. After fs.Parse, call Resolve.
func BindFlags(fs *flag.FlagSet, s *Serve) {
	s.EnsureDefaults()
	fs.IntVar(&s.Port, "port", s.Port, "TCP port to listen on")
	fs.StringVar(&s.BindIP, "bind_ip", s.BindIP, "comma-separated addresses to listen on")
	fs.BoolFunc("bind_ip_all", "listen on all IPv4 and IPv6 addresses", func(string) error {
		s.BindIP = "0.0.0.0,::"
		return nil
	})
	fs.StringVar(&s.DBPath, "dbpath", s.DBPath, "data directory")
	fs.StringVar(&s.ConfigPath, "config", s.ConfigPath, "mongod-style YAML configuration file")
	fs.Var((*millis)(&s.JournalCommitInterval), "journalCommitInterval",
		"longest wait in milliseconds before a j:false write is synced (1-500)")
	fs.IntVar(&s.OplogSizeMB, "oplogSize", s.OplogSizeMB, "oplog size in megabytes")
	fs.StringVar(&s.LogPath, "logpath", s.LogPath, "log file (default stderr)")
	fs.BoolVar(&s.LogAppend, "logappend", s.LogAppend, "append to the log file instead of rotating it")
	fs.IntVar(&s.MaxConns, "maxConns", s.MaxConns, "maximum simultaneous connections")
	fs.StringVar(&s.ReplSet, "replSet", s.ReplSet, "replica set name")
	fs.BoolVar(&s.Auth, "auth", s.Auth, "require authentication (SCRAM users; a replica set or cluster also needs --keyFile)")
	bindSecurityFlags(fs, s)
	bindShardingFlags(fs, s)
	bindTLSFlags(fs, &s.TLS)
	bindAllowlistFlags(fs, &s.IPAllowlist)
	bindCacheFlags(fs, s) // cache.go
	fs.IntVar(&s.MetricsPort, "metricsPort", s.MetricsPort, "HTTP port of GET /metrics (Prometheus text format: serverStatus counters) on the --bind_ip addresses (0 = off)")
	fs.BoolVar(&s.InMemory, "inMemory", s.InMemory, "keep data in memory only (tests)")
	fs.DurationVar(&s.SimulatedLatency, "simulatedLatency", s.SimulatedLatency,
		"one-way delay added to node-to-node messages (experiments; e.g. 50us)")
	fs.Func("simulatedLatencyTo", "per-peer one-way delays: host:port=duration[,...]", func(v string) error {
		m, err := parseLatencyMap(v)
		if err != nil {
			return err
		}
		s.SimulatedLatencyTo = m
		return nil
	})
	fs.Func("setParameter", "server parameter name=value (repeatable); known: ttlMonitorSleepSecs, messageTimeoutMillis, internalQueryMaxBlockingSortMemoryUsageBytes, internalDocumentSourceGroupMaxMemoryBytes, ...", func(v string) error {
		name, value, ok := strings.Cut(v, "=")
		if !ok || name == "" {
			return fmt.Errorf("--setParameter wants name=value, got %q", v)
		}
		return s.setParameter(name, value) // yaml_params.go
	})
	// TODO(#2): mongod's repeatable -v/-vv verbosity flags.
}

// Resolve finishes configuration after fs.Parse, with mongod's precedence:
// explicitly set flags override the config file (s.ConfigPath), which
// overrides defaults (filled by BindFlags). It then validates; it does not
// call EnsureDefaults again, so an explicit zero (--port=0,
// commitIntervalMs: 0) is reported rather than silently replaced.
func Resolve(fs *flag.FlagSet, s *Serve) error {
	if s.ConfigPath != "" {
		explicit := map[string]string{}
		var order []string
		fs.Visit(func(f *flag.Flag) {
			if !reapplicable(f) {
				return
			}
			explicit[f.Name] = f.Value.String()
			order = append(order, f.Name)
		})
		if err := LoadYAML(s.ConfigPath, s); err != nil {
			return err
		}
		for _, name := range order { // re-apply: flags win over the file
			if err := fs.Set(name, explicit[name]); err != nil {
				return fmt.Errorf("config: re-applying --%s: %w", name, err)
			}
		}
	}
	if err := s.Validate(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}

// reapplicable reports whether Resolve can set f again from its String():
// not the repeatable flag.Func flags (setParameter, simulatedLatencyTo),
// whose String is empty. Their values survive the file: it cannot set
// simulatedLatencyTo, and its setParameter: section keeps the flags'
// parameters (yaml_params.go). Boolean func flags (bind_ip_all) take "".
func reapplicable(f *flag.Flag) bool {
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return true
	}
	return f.Value.String() != ""
}

// millis is a time.Duration flag given in milliseconds, as mongod's
// --journalCommitInterval; a Go duration ("50ms") is accepted too.
type millis time.Duration

func (m *millis) String() string {
	if m == nil {
		return "0"
	}
	if d := time.Duration(*m); d%time.Millisecond != 0 {
		return d.String()
	}
	return strconv.FormatInt(time.Duration(*m).Milliseconds(), 10)
}

func (m *millis) Set(v string) error {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		*m = millis(time.Duration(n) * time.Millisecond)
		return nil
	}
	if d, err := time.ParseDuration(strings.TrimSpace(v)); err == nil {
		*m = millis(d)
		return nil
	}
	return fmt.Errorf("%q is not a number of milliseconds", v)
}

// knownParameters are the --setParameter names relaydb understands.
// The aggregation memory limits (agg.ParamNames) are known too; the server
// applies them with agg.SetParameter at startup.
var knownParameters = map[string]bool{"ttlMonitorSleepSecs": true, "enableTestCommands": true, "messageTimeoutMillis": true,
	"authenticationMechanisms": true}

func init() {
	for _, n := range agg.ParamNames() {
		knownParameters[n] = true
	}
}

// MessageTimeout returns the messageTimeoutMillis parameter: how long a
// message may take to arrive once begun. 0 (unset or invalid) means the
// server's default, 30 s; negative disables the timeout.
func (s *Serve) MessageTimeout() time.Duration {
	n, err := strconv.Atoi(s.Parameters["messageTimeoutMillis"])
	if err != nil || n == 0 {
		return 0
	}
	return time.Duration(n) * time.Millisecond
}

// TTLMonitorSleep returns the ttlMonitorSleepSecs parameter, or 0 (the
// default, 60 s) when unset or invalid (Validate reports invalid values).
func (s *Serve) TTLMonitorSleep() time.Duration {
	n, err := strconv.Atoi(s.Parameters["ttlMonitorSleepSecs"])
	if err != nil || n <= 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}

// parseLatencyMap parses "host:port=duration,host:port=duration".
func parseLatencyMap(v string) (map[string]time.Duration, error) {
	m := map[string]time.Duration{}
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		host, dur, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("--simulatedLatencyTo wants host:port=duration, got %q", part)
		}
		d, err := time.ParseDuration(dur)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("--simulatedLatencyTo: bad duration %q for %s", dur, host)
		}
		m[host] = d
	}
	return m, nil
}

package main

import (
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/config"
	"github.com/relaydb/relaydb/internal/tlsconf"
)

// getCmdLineOpts' "parsed" document: the process's resolved configuration
// (flags over the config file over defaults) in mongod's option tree, so
// tools that read it (pymongo's test harness decides from
// parsed.security whether the server requires a login) see what they
// would on a mongod. Unlike mongod, which lists only the options given,
// relaydb reports the effective values of the options it has (port,
// bindIp and dbPath always). Passwords are shown as "<password>", as
// mongod redacts them.

// parsedServeOptions is the "parsed" document of `relaydb serve`.
func parsedServeOptions(s *config.Serve) bson.D {
	var out doc
	out.add("config", s.ConfigPath, s.ConfigPath != "")
	net := netOptions(s.Port, s.BindIP, s.MaxConns, s.IPAllowlist.Addresses, s.TLS)
	out.add("net", net, true)
	var repl doc
	repl.add("replSet", s.ReplSet, s.ReplSet != "")
	repl.add("oplogSizeMB", int32(s.OplogSizeMB), s.ReplSet != "")
	out.add("replication", repl.d, len(repl.d) > 0)
	sec := securityOptions(s.Auth, s.KeyFile, s.ClusterAuthMode)
	if s.NoScripting { // --noscripting, as mongod reports it
		sec = append(sec, bson.E{Key: "javascriptEnabled", Value: false})
	}
	out.add("security", sec, len(sec) > 0)
	out.add("setParameter", parameterOptions(s.Parameters), len(s.Parameters) > 0)
	out.add("sharding", bson.D{{Key: "clusterRole", Value: s.ClusterRole}}, s.ClusterRole != "")
	var storage doc
	storage.add("dbPath", s.DBPath, !s.InMemory)
	storage.add("journal", bson.D{{Key: "commitIntervalMs", Value: int32(s.JournalCommitInterval.Milliseconds())}}, true)
	if gb := s.WiredTigerCacheSizeGB; gb != nil {
		storage.add("wiredTiger", bson.D{{Key: "engineConfig", Value: bson.D{{Key: "cacheSizeGB", Value: *gb}}}}, true)
	}
	out.add("storage", storage.d, true)
	out.add("systemLog", logOptions(s.LogPath, s.LogAppend, s.LogVerbosity), s.LogPath != "" || s.LogVerbosity != 0)
	var own doc // relaydb's own options, under a key of their own
	own.add("inMemory", true, s.InMemory)
	own.add("metricsPort", int32(s.MetricsPort), s.MetricsPort != 0)
	own.add("cacheSizeMB", int32(s.CacheSizeMB), s.CacheSizeMB != 0)
	out.add("relaydb", own.d, len(own.d) > 0)
	return out.d
}

// parsedRouterOptions is the "parsed" document of `relaydb router`, as
// mongos shapes it (sharding.configDB).
func parsedRouterOptions(r *config.Router) bson.D {
	var out doc
	out.add("config", r.ConfigPath, r.ConfigPath != "")
	out.add("net", netOptions(r.Port, r.BindIP, r.MaxConns, r.IPAllowlist.Addresses, r.TLS), true)
	rsec := securityOptions(false, r.KeyFile, r.ClusterAuthMode)
	if r.NoScripting {
		rsec = append(rsec, bson.E{Key: "javascriptEnabled", Value: false})
	}
	out.add("security", rsec, len(rsec) > 0)
	out.add("setParameter", parameterOptions(r.Parameters), len(r.Parameters) > 0)
	out.add("sharding", bson.D{{Key: "configDB", Value: r.ConfigDB}}, true)
	out.add("systemLog", logOptions(r.LogPath, r.LogAppend, r.LogVerbosity), r.LogPath != "" || r.LogVerbosity != 0)
	return out.d
}

// doc builds a bson.D of the options that are set.
type doc struct{ d bson.D }

func (o *doc) add(key string, v any, set bool) {
	if set {
		o.d = append(o.d, bson.E{Key: key, Value: v})
	}
}

func netOptions(port int, bindIP string, maxConns int, allow []string, t tlsconf.Options) bson.D {
	var net doc
	net.add("bindIp", bindIP, true)
	net.add("port", int32(port), true)
	net.add("maxIncomingConnections", int32(maxConns), maxConns != config.DefaultMaxConns)
	net.add("ipAllowlist", strings.Join(allow, ","), len(allow) > 0)
	net.add("tls", tlsOptions(t), t.Mode != "")
	return net.d
}

func tlsOptions(t tlsconf.Options) bson.D {
	var o doc
	o.add("mode", t.Mode, true)
	o.add("certificateKeyFile", t.CertificateKeyFile, t.CertificateKeyFile != "")
	o.add("certificateKeyFilePassword", "<password>", t.CertificateKeyFilePassword != "")
	o.add("CAFile", t.CAFile, t.CAFile != "")
	o.add("clusterFile", t.ClusterFile, t.ClusterFile != "")
	o.add("clusterCAFile", t.ClusterCAFile, t.ClusterCAFile != "")
	o.add("allowConnectionsWithoutCertificates", true, t.AllowConnectionsWithoutCertificates)
	o.add("allowInvalidHostnames", true, t.AllowInvalidHostnames)
	o.add("allowInvalidCertificates", true, t.AllowInvalidCertificates)
	o.add("disabledProtocols", t.DisabledProtocols, t.DisabledProtocols != "")
	return o.d
}

// securityOptions: --auth is security.authorization "enabled", as mongod
// reports it; a key file alone implies authorization without saying so.
func securityOptions(auth bool, keyFile, clusterAuthMode string) bson.D {
	var o doc
	o.add("authorization", "enabled", auth)
	o.add("keyFile", keyFile, keyFile != "")
	o.add("clusterAuthMode", clusterAuthMode, clusterAuthMode != "")
	return o.d
}

// parameterOptions lists --setParameter values by name, as strings
// (mongod keeps them as given).
func parameterOptions(p map[string]string) bson.D {
	names := make([]string, 0, len(p))
	for n := range p {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make(bson.D, 0, len(names))
	for _, n := range names {
		out = append(out, bson.E{Key: n, Value: p[n]})
	}
	return out
}

func logOptions(path string, appendLog bool, verbosity int) bson.D {
	var o doc
	o.add("destination", "file", path != "")
	o.add("path", path, path != "")
	o.add("logAppend", true, path != "" && appendLog)
	o.add("verbosity", int32(verbosity), verbosity != 0)
	return o.d
}

package main

import (
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/config"
	"github.com/relaydb/relaydb/internal/tlsconf"
)

// lookup follows a dotted path through nested bson.D values.
func lookup(d bson.D, path ...string) (any, bool) {
	var cur any = d
	for _, k := range path {
		doc, ok := cur.(bson.D)
		if !ok {
			return nil, false
		}
		found := false
		for _, e := range doc {
			if e.Key == k {
				cur, found = e.Value, true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return cur, true
}

func TestParsedServeOptions(t *testing.T) {
	base := func() *config.Serve { s := &config.Serve{}; s.EnsureDefaults(); return s }
	tests := []struct {
		name   string
		cfg    func() *config.Serve
		want   map[string]any // dotted path -> value
		absent []string
	}{
		{"defaults", base,
			map[string]any{"net.port": int32(27017), "net.bindIp": "127.0.0.1", "storage.dbPath": "./data",
				"storage.journal.commitIntervalMs": int32(100)},
			[]string{"security", "replication", "setParameter", "sharding", "systemLog", "net.tls", "relaydb"}},
		{"replica set member with auth", func() *config.Serve {
			s := base()
			s.Port, s.DBPath, s.ReplSet, s.Auth = 27018, "/d/m1", "rs0", true
			s.Parameters = map[string]string{"enableTestCommands": "1", "ttlMonitorSleepSecs": "5"}
			s.JournalCommitInterval = 50 * time.Millisecond
			return s
		}, map[string]any{"net.port": int32(27018), "storage.dbPath": "/d/m1", "replication.replSet": "rs0",
			"security.authorization": "enabled", "setParameter.enableTestCommands": "1",
			"setParameter.ttlMonitorSleepSecs": "5", "storage.journal.commitIntervalMs": int32(50)}, nil},
		{"key file, shard, log file, TLS, in memory", func() *config.Serve {
			s := base()
			s.KeyFile, s.ReplSet, s.ClusterRole = "/k", "sh0", "shardsvr"
			s.LogPath, s.LogAppend, s.InMemory = "/l.log", true, true
			s.TLS = tlsconf.Options{Mode: "requireTLS", CertificateKeyFile: "/c.pem", CertificateKeyFilePassword: "secret"}
			return s
		}, map[string]any{"security.keyFile": "/k", "sharding.clusterRole": "shardsvr",
			"systemLog.destination": "file", "systemLog.path": "/l.log", "systemLog.logAppend": true,
			"net.tls.mode": "requireTLS", "net.tls.certificateKeyFile": "/c.pem",
			"net.tls.certificateKeyFilePassword": "<password>", "relaydb.inMemory": true},
			[]string{"security.authorization", "storage.dbPath"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := parsedServeOptions(tc.cfg())
			checkPaths(t, got, tc.want, tc.absent)
		})
	}
}

func TestParsedRouterOptions(t *testing.T) {
	r := &config.Router{ConfigDB: "cfg/127.0.0.1:27019", KeyFile: "/k"}
	r.EnsureDefaults()
	checkPaths(t, parsedRouterOptions(r), map[string]any{
		"sharding.configDB": "cfg/127.0.0.1:27019", "net.port": int32(27017), "security.keyFile": "/k",
	}, []string{"storage", "security.authorization"})
}

func checkPaths(t *testing.T, got bson.D, want map[string]any, absent []string) {
	t.Helper()
	for path, w := range want {
		v, ok := lookup(got, strings.Split(path, ".")...)
		if !ok || v != w {
			t.Errorf("%s = %v (present %v), want %v; parsed %v", path, v, ok, w, got)
		}
	}
	for _, path := range absent {
		if v, ok := lookup(got, strings.Split(path, ".")...); ok {
			t.Errorf("%s = %v, want absent", path, v)
		}
	}
}

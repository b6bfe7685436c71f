package config

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// yamlCase is how one YAML key shows (as optionCase): value is its sample
// value (a YAML scalar or flow mapping), base other keys it needs.
type yamlCase struct {
	value           string
	base            map[string]string
	errSub, warnSub string
}

var yamlTLS = map[string]string{"net.tls.mode": "requireTLS", "net.tls.certificateKeyFile": "/c.pem", "net.tls.CAFile": "/ca0.pem"}

// serveYAMLCases names every YAML key relaydb serve knows, unsupported
// sections included (TestEveryServeYAMLKey fails on a missing one).
var serveYAMLCases = map[string]yamlCase{
	"net.bindIp":                         {value: "10.0.0.1"},
	"net.ipAllowlist.addresses":          {value: "[10.0.0.0/8]"},
	"net.ipAllowlist.alwaysAllowMembers": {value: "false", base: map[string]string{"net.ipAllowlist.addresses": "[10.0.0.0/8]"}},
	"net.maxIncomingConnections":         {value: "10"},
	"net.port":                           {value: "28000"},
	"net.ssl":                            {value: "{mode: requireSSL}", errSub: "net.ssl"},
	"net.tls.CAFile":                     {value: "/ca.pem", base: yamlTLS},
	"net.tls.allowConnectionsWithoutCertificates": {value: "true", base: yamlTLS},
	"net.tls.allowInvalidCertificates":            {value: "true", base: yamlTLS},
	"net.tls.allowInvalidHostnames":               {value: "true", base: yamlTLS},
	"net.tls.certificateKeyFile":                  {value: "/p.pem", base: yamlTLS},
	"net.tls.certificateKeyFilePassword":          {value: "pw", base: yamlTLS},
	"net.tls.clusterCAFile":                       {value: "/ca2.pem", base: yamlTLS},
	"net.tls.clusterFile":                         {value: "/m.pem", base: yamlTLS},
	"net.tls.disabledProtocols":                   {value: "TLS1_0", base: yamlTLS},
	"net.tls.mode":                                {value: "preferTLS", base: yamlTLS},
	"relaydb.cacheSizeMB":                         {value: "512"},
	"relaydb.inMemory":                            {value: "true"},
	"relaydb.metricsPort":                         {value: "9216"},
	"replication.oplogSizeMB":                     {value: "64"},
	"replication.replSetName":                     {value: "rs1"},
	"security.authorization":                      {value: "enabled"},
	"security.clusterAuthMode":                    {value: "x509"},
	"security.javascriptEnabled":                  {value: "false"},
	"security.keyFile":                            {value: "/k"},
	"setParameter":                                {value: "{ttlMonitorSleepSecs: 5}"},
	"sharding.clusterRole":                        {value: "shardsvr"},
	"storage.dbPath":                              {value: "/d"},
	"storage.journal.commitIntervalMs":            {value: "20"},
	"storage.journal.enabled":                     {value: "true", warnSub: "storage.journal.enabled is accepted but ignored"},
	"storage.wiredTiger.engineConfig.cacheSizeGB": {value: "1.5"},
	"storage.oplogMinRetentionHours":              {value: "24", warnSub: "storage.oplogMinRetentionHours is accepted but ignored"},
	"systemLog.destination":                       {value: "syslog", warnSub: "syslog is not supported"},
	"systemLog.logAppend":                         {value: "true"},
	"systemLog.path":                              {value: "/l"},
	"systemLog.quiet":                             {value: "true", warnSub: "systemLog.quiet is accepted but ignored"},
	"systemLog.timeStampFormat":                   {value: "iso8601-utc", warnSub: "systemLog.timeStampFormat is accepted but ignored"},
	"systemLog.verbosity":                         {value: "2"},
}

// TestEveryServeYAMLKey (issue #14 item 7): every key of the data node's
// configuration file changes the configuration, warns that it is ignored,
// or fails naming itself; every unsupported section fails.
func TestEveryServeYAMLKey(t *testing.T) {
	for path := range serveOptions {
		c, ok := serveYAMLCases[path]
		if !ok {
			t.Errorf("YAML key %s is not in serveYAMLCases: say what it does", path)
			continue
		}
		checkYAMLKey(t, path, c, serveFromYAML)
	}
	for _, path := range unsupportedSections {
		if _, err := serveFromYAML(nil, path, "x"); err == nil || !strings.Contains(err.Error(), "unsupported option: "+path) {
			t.Errorf("unsupported %s: err %v, want \"unsupported option: %s\"", path, err, path)
		}
	}
}

// checkYAMLKey runs c as subtest path: parse (serveFromYAML or
// routerFromYAML) must read c.base alone, and path: c.value must then
// have c's effect (checkEffect).
func checkYAMLKey[T any](t *testing.T, path string, c yamlCase, parse func(base map[string]string, path, value string) (T, error)) {
	t.Helper()
	t.Run(path, func(t *testing.T) {
		before, err := parse(c.base, "", "")
		if err != nil {
			t.Fatalf("base %v: %v", c.base, err)
		}
		after, err := parse(c.base, path, c.value)
		checkEffect(t, path+": "+c.value, c.errSub, c.warnSub, before, after, err)
	})
}

// yamlDoc is a file holding base plus path: value (none when path is "").
func yamlDoc(base map[string]string, path, value string) []byte {
	var b strings.Builder
	for k, v := range base {
		if k != path {
			b.WriteString(nested(k, v))
		}
	}
	if path != "" {
		b.WriteString(nested(path, value))
	}
	return []byte(b.String())
}

// serveFromYAML parses a file holding base plus path: value.
func serveFromYAML(base map[string]string, path, value string) (Serve, error) {
	var s Serve
	s.EnsureDefaults()
	err := parseYAML(yamlDoc(base, path, value), &s)
	return s, err
}

// nested is path: value as a one-line-per-level YAML document
// (a.b: v -> "a: {b: v}").
func nested(path, value string) string {
	parts := strings.Split(path, ".")
	out := value
	for i := len(parts) - 1; i > 0; i-- {
		out = "{" + parts[i] + ": " + out + "}"
	}
	return parts[0] + ": " + out + "\n"
}

// TestSetParameterSection: the YAML setParameter: section takes the
// --setParameter names (an unknown one is an error naming it), and a
// parameter given by flag keeps the flag's value.
func TestSetParameterSection(t *testing.T) {
	if _, err := serveFromYAML(nil, "setParameter", "{chainingAllowed: false}"); err == nil || !strings.Contains(err.Error(), `unknown server parameter "chainingAllowed"`) {
		t.Errorf("unknown parameter in setParameter: err %v", err)
	}
	file := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(file, []byte("setParameter:\n  ttlMonitorSleepSecs: 5\n  messageTimeoutMillis: 700\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var s Serve
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	BindFlags(fs, &s)
	if err := fs.Parse([]string{"--setParameter=ttlMonitorSleepSecs=9", "--config=" + file}); err != nil {
		t.Fatal(err)
	}
	if err := Resolve(fs, &s); err != nil {
		t.Fatal(err)
	}
	if s.Parameters["ttlMonitorSleepSecs"] != "9" || s.Parameters["messageTimeoutMillis"] != "700" {
		t.Errorf("parameters %v, want ttlMonitorSleepSecs 9 (flag) and messageTimeoutMillis 700 (file)", s.Parameters)
	}
}

// TestEveryRouterYAMLKey: as TestEveryServeYAMLKey for relaydb router.
func TestEveryRouterYAMLKey(t *testing.T) {
	for path := range routerOptions {
		c, ok := serveYAMLCases[path]
		switch {
		case path == "sharding.configDB":
			c, ok = yamlCase{value: "cfg/h2:2"}, true
		case path == "setParameter":
			c = yamlCase{value: "{userCacheInvalidationIntervalSecs: 5}"}
		}
		if !ok {
			t.Errorf("router YAML key %s has no case", path)
			continue
		}
		checkYAMLKey(t, path, c, routerFromYAML)
	}
}

// routerFromYAML parses a router's file holding base plus path: value.
func routerFromYAML(base map[string]string, path, value string) (Router, error) {
	var r Router
	r.EnsureDefaults()
	return r, parseRouterYAML(yamlDoc(base, path, value), &r)
}

package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoadYAMLGolden(t *testing.T) {
	var s Serve
	s.EnsureDefaults()
	if err := LoadYAML(filepath.Join("testdata", "full.yaml"), &s); err != nil {
		t.Fatal(err)
	}
	want := Serve{Port: 27018, BindIP: "127.0.0.1,::1", MaxConns: 500, DBPath: "/var/lib/relaydb",
		JournalCommitInterval: 50 * time.Millisecond, OplogSizeMB: 2048, ReplSet: "rs0",
		LogPath: "/var/log/relaydb.log", LogAppend: true, LogVerbosity: 2}
	if !equalServe(s, want) {
		t.Fatalf("loaded %+v\nwant   %+v", s, want)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "storage.oplogMinRetentionHours") {
		t.Fatalf("warnings = %q", s.Warnings)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if s.Parameters["ttlMonitorSleepSecs"] != "30" {
		t.Fatalf("setParameter section: parameters %v", s.Parameters)
	}
}

func TestLoadYAMLMissingFile(t *testing.T) {
	var s Serve
	if err := LoadYAML(filepath.Join(t.TempDir(), "nope.yaml"), &s); err == nil {
		t.Fatal("missing file accepted")
	}
}

func TestParseYAML(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		check   func(s Serve) bool
		wantErr string
	}{
		{"empty", "", func(s Serve) bool { return s.Port == DefaultPort }, ""},
		{"partial keeps defaults", "net:\n  port: 1234\n", func(s Serve) bool { return s.Port == 1234 && s.DBPath == DefaultDBPath }, ""},
		{"path implies file", "systemLog:\n  path: /tmp/x.log\n", func(s Serve) bool { return s.LogPath == "/tmp/x.log" }, ""},
		{"syslog is stderr", "systemLog:\n  destination: syslog\n", func(s Serve) bool { return s.LogPath == "" && len(s.Warnings) == 1 }, ""},
		{"file needs path", "systemLog:\n  destination: file\n", nil, "systemLog.path is required"},
		{"bad destination", "systemLog:\n  destination: kafka\n", nil, `systemLog.destination "kafka" is invalid`},
		{"unknown top level", "nett:\n  port: 1\n", nil, "unrecognized option: nett.port"},
		{"unknown top-level scalar", "verbose: true\n", nil, "unrecognized option: verbose"},
		{"unknown nested", "net:\n  prot: 1\n", nil, "unrecognized option: net.prot"},
		{"unsupported section", "security:\n  transitionToAuth: true\n", nil, "unsupported option: security.transitionToAuth"},
		{"keyFile", "security:\n  keyFile: /k\n  clusterAuthMode: keyFile\n", func(s Serve) bool { return s.KeyFile == "/k" && s.ClusterAuthMode == "keyFile" }, ""},
		{"authorization", "security:\n  authorization: enabled\n", func(s Serve) bool { return s.Auth }, ""},
		{"bad authorization", "security:\n  authorization: on\n", nil, `security.authorization: "on" is invalid`},
		{"unsupported leaf", "net:\n  compression:\n    compressors: zstd\n", nil, "unsupported option: net.compression"},
		{"unsupported sharding", "sharding:\n  archiveMovedChunks: true\n", nil, "unsupported option: sharding.archiveMovedChunks"},
		{"wrong type", "net:\n  port: abc\n", nil, `net.port: "abc" is not a valid int`},
		{"mapping for scalar", "net:\n  port:\n    x: 1\n", nil, "net.port: must be a scalar"},
		{"scalar for section", "net: 5\n", nil, "unrecognized option: net"},
		{"not a mapping", "- a\n- b\n", nil, "the document must be a mapping"},
		{"syntax", "net: [\n", nil, "yaml"},
		{"duplicate key", "net:\n  port: 1\n  port: 2\n", nil, "line 3: duplicate option net.port"},
		{"commit interval ms", "storage:\n  journal:\n    commitIntervalMs: 7\n", func(s Serve) bool { return s.JournalCommitInterval == 7*time.Millisecond }, ""},
		{"bool option", "systemLog:\n  logAppend: yes\n", nil, "is not a valid bool"},
		{"several errors", "net:\n  prot: 1\nfoo: 2\n", nil, "unrecognized option: foo\nline 2: unrecognized option: net.prot"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s Serve
			s.EnsureDefaults()
			err := parseYAML([]byte(tc.yaml), &s)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(s) {
				t.Fatalf("unexpected result %+v", s)
			}
		})
	}
}

func writeFile(t *testing.T, content string) string {
	p := filepath.Join(t.TempDir(), "relaydb.yaml")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

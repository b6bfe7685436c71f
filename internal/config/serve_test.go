package config

import (
	"strings"
	"testing"
	"time"
)

func TestEnsureDefaults(t *testing.T) {
	var s Serve
	s.EnsureDefaults()
	want := Serve{Port: 27017, BindIP: "127.0.0.1", DBPath: "./data",
		JournalCommitInterval: 100 * time.Millisecond, OplogSizeMB: 1024, MaxConns: 1_000_000}
	if !equalServe(s, want) {
		t.Fatalf("defaults = %+v, want %+v", s, want)
	}
	if err := s.Validate(); err != nil {
		t.Fatalf("defaults do not validate: %v", err)
	}
	custom := Serve{Port: 1, BindIP: "0.0.0.0", DBPath: "x", JournalCommitInterval: time.Millisecond, OplogSizeMB: 1, MaxConns: 1}
	got := custom
	got.EnsureDefaults()
	if !equalServe(got, custom) {
		t.Fatalf("EnsureDefaults changed set fields: %+v", got)
	}
}

func equalServe(a, b Serve) bool {
	a.Warnings, b.Warnings = nil, nil
	return a.Port == b.Port && a.BindIP == b.BindIP && a.DBPath == b.DBPath &&
		a.JournalCommitInterval == b.JournalCommitInterval && a.OplogSizeMB == b.OplogSizeMB &&
		a.LogPath == b.LogPath && a.LogAppend == b.LogAppend && a.LogVerbosity == b.LogVerbosity &&
		a.MaxConns == b.MaxConns && a.ReplSet == b.ReplSet && a.MetricsPort == b.MetricsPort &&
		a.InMemory == b.InMemory && a.ConfigPath == b.ConfigPath
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Serve)
		want   string // substring of the error; "" = valid
	}{
		{"defaults", func(*Serve) {}, ""},
		{"port zero", func(s *Serve) { s.Port = 0 }, "port 0 is out of range"},
		{"port high", func(s *Serve) { s.Port = 65536 }, "port 65536 is out of range"},
		{"bind empty", func(s *Serve) { s.BindIP = " " }, "bind_ip must not be empty"},
		{"bind empty entry", func(s *Serve) { s.BindIP = "127.0.0.1,,::1" }, "empty or malformed entry"},
		{"bind list ok", func(s *Serve) { s.BindIP = "127.0.0.1, ::1,localhost" }, ""},
		{"dbpath empty", func(s *Serve) { s.DBPath = "" }, "dbpath must not be empty"},
		{"dbpath empty in memory", func(s *Serve) { s.DBPath, s.InMemory = "", true }, ""},
		{"commit interval low", func(s *Serve) { s.JournalCommitInterval = time.Microsecond }, "journalCommitInterval 1µs is out of range"},
		{"commit interval high", func(s *Serve) { s.JournalCommitInterval = 501 * time.Millisecond }, "out of range (1-500ms)"},
		{"commit interval edges", func(s *Serve) { s.JournalCommitInterval = 500 * time.Millisecond }, ""},
		{"oplog zero", func(s *Serve) { s.OplogSizeMB = -5 }, "oplogSize -5MB is out of range"},
		{"verbosity", func(s *Serve) { s.LogVerbosity = 6 }, "verbosity 6 is out of range"},
		{"max conns", func(s *Serve) { s.MaxConns = -1 }, "maxConns -1 must be at least 1"},
		{"metrics port range", func(s *Serve) { s.MetricsPort = 70000 }, "metricsPort 70000 is out of range"},
		{"metrics port clash", func(s *Serve) { s.MetricsPort = s.Port }, "must differ from port"},
		{"replset seed list", func(s *Serve) { s.ReplSet = "rs0/a:1,b:2" }, "must be a bare name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s Serve
			s.EnsureDefaults()
			tc.modify(&s)
			err := s.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestValidateReportsAll(t *testing.T) {
	s := Serve{Port: -1, BindIP: "x", DBPath: "d", JournalCommitInterval: time.Hour, OplogSizeMB: 1, MaxConns: 1}
	err := s.Validate()
	if err == nil || !strings.Contains(err.Error(), "port -1") || !strings.Contains(err.Error(), "journalCommitInterval 1h0m0s") {
		t.Fatalf("want both errors, got %v", err)
	}
}

func TestBindAddrs(t *testing.T) {
	s := Serve{BindIP: " 127.0.0.1 ,::1,"}
	if got := strings.Join(s.BindAddrs(), "|"); got != "127.0.0.1|::1" {
		t.Fatalf("BindAddrs = %q", got)
	}
}

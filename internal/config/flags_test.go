package config

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

func parse(t *testing.T, args ...string) (Serve, error) {
	t.Helper()
	var s Serve
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	BindFlags(fs, &s)
	if err := fs.Parse(args); err != nil {
		return s, err
	}
	return s, Resolve(fs, &s)
}

func TestFlagsDefaults(t *testing.T) {
	s, err := parse(t)
	if err != nil {
		t.Fatal(err)
	}
	if s.Port != 27017 || s.BindIP != "127.0.0.1" || s.JournalCommitInterval != 100*time.Millisecond {
		t.Fatalf("defaults %+v", s)
	}
}

func TestFlags(t *testing.T) {
	s, err := parse(t, "--port=28000", "--bind_ip=0.0.0.0", "--dbpath=/d", "--journalCommitInterval=20",
		"--oplogSize=64", "--logpath=/l", "--logappend", "--maxConns=10", "--replSet=rs1",
		"--inMemory")
	if err != nil {
		t.Fatal(err)
	}
	want := Serve{Port: 28000, BindIP: "0.0.0.0", DBPath: "/d", JournalCommitInterval: 20 * time.Millisecond,
		OplogSizeMB: 64, LogPath: "/l", LogAppend: true, MaxConns: 10, ReplSet: "rs1", InMemory: true}
	if !equalServe(s, want) {
		t.Fatalf("got %+v\nwant %+v", s, want)
	}
}

func TestFlagsBindIPAll(t *testing.T) {
	s, err := parse(t, "--bind_ip_all")
	if err != nil || s.BindIP != "0.0.0.0,::" {
		t.Fatalf("BindIP %q, err %v", s.BindIP, err)
	}
}

func TestCommitIntervalFlag(t *testing.T) {
	for in, want := range map[string]time.Duration{"1": time.Millisecond, "500": 500 * time.Millisecond, "50ms": 50 * time.Millisecond} {
		s, err := parse(t, "--journalCommitInterval", in)
		if err != nil || s.JournalCommitInterval != want {
			t.Fatalf("%s: got %v, %v", in, s.JournalCommitInterval, err)
		}
	}
	for _, bad := range []string{"0", "501", "soon"} {
		if _, err := parse(t, "--journalCommitInterval", bad); err == nil {
			t.Fatalf("%s accepted", bad)
		}
	}
	var m millis = millis(1500 * time.Microsecond)
	if m.String() != "1.5ms" {
		t.Fatalf("String = %s", m.String())
	}
}

// Explicit flags beat the config file, which beats defaults (mongod's order).
func TestPrecedence(t *testing.T) {
	cfg := writeFile(t, "net:\n  port: 27100\n  bindIp: 10.0.0.1\nstorage:\n  dbPath: /from/file\n  journal:\n    commitIntervalMs: 30\n")
	s, err := parse(t, "--config", cfg, "--port=27200", "--journalCommitInterval=40")
	if err != nil {
		t.Fatal(err)
	}
	if s.Port != 27200 || s.JournalCommitInterval != 40*time.Millisecond {
		t.Fatalf("flags did not win: %+v", s)
	}
	if s.BindIP != "10.0.0.1" || s.DBPath != "/from/file" {
		t.Fatalf("file did not beat defaults: %+v", s)
	}
	if s.OplogSizeMB != DefaultOplogSizeMB {
		t.Fatalf("default lost: %+v", s)
	}
	// A flag explicitly set to its default value still wins.
	s, err = parse(t, "--port=27017", "--config", cfg)
	if err != nil || s.Port != 27017 {
		t.Fatalf("explicit default lost: port %d, %v", s.Port, err)
	}
}

func TestResolveErrors(t *testing.T) {
	bad := writeFile(t, "security:\n  transitionToAuth: true\n")
	if _, err := parse(t, "--config", bad); err == nil || !strings.Contains(err.Error(), "unsupported option: security.transitionToAuth") {
		t.Fatalf("err = %v", err)
	}
	if _, err := parse(t, "--port=70000"); err == nil || !strings.Contains(err.Error(), "port 70000 is out of range") {
		t.Fatalf("err = %v", err)
	}
	invalid := writeFile(t, "storage:\n  journal:\n    commitIntervalMs: 900\n")
	if _, err := parse(t, "--config", invalid); err == nil || !strings.Contains(err.Error(), "out of range (1-500ms)") {
		t.Fatalf("err = %v", err)
	}
	// The file's invalid value is overridden by an explicit flag.
	if _, err := parse(t, "--config", invalid, "--journalCommitInterval=100"); err != nil {
		t.Fatalf("flag should override invalid file value: %v", err)
	}
}

func TestExplicitZeroRejected(t *testing.T) {
	if _, err := parse(t, "--port=0"); err == nil {
		t.Fatal("--port=0 accepted")
	}
	zero := writeFile(t, "storage:\n  journal:\n    commitIntervalMs: 0\n")
	if _, err := parse(t, "--config", zero); err == nil || !strings.Contains(err.Error(), "journalCommitInterval 0s") {
		t.Fatalf("commitIntervalMs 0: %v", err)
	}
}

func TestParseLatencyMap(t *testing.T) {
	m, err := parseLatencyMap("127.0.0.1:1=100us, 127.0.0.1:2=2ms")
	if err != nil || len(m) != 2 || m["127.0.0.1:1"] != 100*time.Microsecond || m["127.0.0.1:2"] != 2*time.Millisecond {
		t.Fatalf("got %v, %v", m, err)
	}
	for _, bad := range []string{"127.0.0.1:1", "h=notaduration", "h=-1ms"} {
		if _, err := parseLatencyMap(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

package config

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestShardingFlags(t *testing.T) {
	tests := []struct {
		args    []string
		role    string
		wantErr string
	}{
		{[]string{"--replSet", "cfg", "--configsvr"}, RoleConfigServer, ""},
		{[]string{"--replSet", "sh0", "--shardsvr"}, RoleShardServer, ""},
		{[]string{"--shardsvr"}, "", "needs --replSet"},
		{[]string{"--replSet", "x", "--shardsvr", "--configsvr"}, "", "mutually exclusive"},
	}
	for _, tt := range tests {
		s := &Serve{}
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(new(strings.Builder))
		BindFlags(fs, s)
		err := fs.Parse(tt.args)
		if err == nil {
			err = Resolve(fs, s)
		}
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%v: err %v, want %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil || s.ClusterRole != tt.role {
			t.Errorf("%v: role %q err %v, want %q", tt.args, s.ClusterRole, err, tt.role)
		}
	}
}

func TestShardingYAML(t *testing.T) {
	var s Serve
	s.EnsureDefaults()
	if err := parseYAML([]byte("replication:\n  replSetName: sh0\nsharding:\n  clusterRole: shardsvr\n"), &s); err != nil {
		t.Fatal(err)
	}
	if s.ClusterRole != RoleShardServer || s.Validate() != nil {
		t.Fatalf("role %q, validate %v", s.ClusterRole, s.Validate())
	}
	s.ClusterRole = "mongos"
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "clusterRole") {
		t.Fatalf("bad role accepted: %v", err)
	}
}

func TestParseConfigDB(t *testing.T) {
	name, hosts, err := ParseConfigDB("cfg/a:1, b:2,c")
	if err != nil || name != "cfg" || strings.Join(hosts, ",") != "a:1,b:2,c:27019" {
		t.Fatalf("got %q %q %v", name, hosts, err)
	}
	for _, bad := range []string{"a:1", "/a:1", "cfg/", "c f/a:1"} {
		if _, _, err := ParseConfigDB(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestRouterConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mongos.yaml")
	yml := "sharding:\n  configDB: cfg/127.0.0.1:27019\nnet:\n  port: 27100\n  bindIp: 127.0.0.1\nsystemLog:\n  destination: file\n  path: /tmp/r.log\n"
	if err := os.WriteFile(path, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &Router{}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	BindRouterFlags(fs, r)
	if err := fs.Parse([]string{"--config", path, "--port", "27200"}); err != nil {
		t.Fatal(err)
	}
	if err := ResolveRouter(fs, r); err != nil {
		t.Fatal(err)
	}
	if r.ConfigDB != "cfg/127.0.0.1:27019" || r.Port != 27200 || r.LogPath != "/tmp/r.log" {
		t.Fatalf("got %+v", r)
	}
	bad := &Router{}
	bad.EnsureDefaults()
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "configdb is required") {
		t.Fatalf("missing configdb: %v", err)
	}
	if err := parseRouterYAML([]byte("storage:\n  dbPath: /x\n"), &Router{}); err == nil {
		t.Fatal("storage.dbPath accepted by the router")
	}
}

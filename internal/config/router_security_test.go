package config

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRouterKeyFile(t *testing.T) {
	tests := []struct {
		args, yaml string
		key, mode  string
		auth       bool
		err        string
	}{
		{args: "--configdb c/h:1", auth: false},
		{args: "--configdb c/h:1 --keyFile /k", key: "/k", mode: "keyFile", auth: true},
		{args: "--configdb c/h:1 --clusterAuthMode keyFile", err: "needs a key file"},
		{args: "--configdb c/h:1 --keyFile /k --clusterAuthMode x509", err: "needs TLS to the cluster"},
		{args: "--configdb c/h:1 --clusterAuthMode x509 --tlsMode allowTLS --tlsCertificateKeyFile k --tlsCAFile c", err: "needs TLS to the cluster"},
		{args: "--configdb c/h:1 --clusterAuthMode x509 --tlsMode preferTLS --tlsCertificateKeyFile k --tlsCAFile c", mode: "x509", auth: true},
		{args: "--configdb c/h:1 --keyFile /k --clusterAuthMode bogus", err: "invalid"},
		{yaml: "sharding:\n  configDB: c/h:1\nsecurity:\n  keyFile: /y\n  clusterAuthMode: keyFile\n", key: "/y", mode: "keyFile", auth: true},
		{yaml: "sharding:\n  configDB: c/h:1\nsecurity:\n  authorization: enabled\n", err: "security.authorization"},
	}
	for _, tt := range tests {
		r := &Router{}
		fs := flag.NewFlagSet("router", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		BindRouterFlags(fs, r)
		args := strings.Fields(tt.args)
		if tt.yaml != "" {
			path := filepath.Join(t.TempDir(), "r.yaml")
			if err := os.WriteFile(path, []byte(tt.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			args = append(args, "--config", path)
		}
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		err := ResolveRouter(fs, r)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q %q: err %v, want %q", tt.args, tt.yaml, err, tt.err)
			}
			continue
		}
		if err != nil || r.KeyFile != tt.key || r.EffectiveClusterAuthMode() != tt.mode || r.AuthRequired() != tt.auth {
			t.Errorf("%q %q: err %v key %q mode %q auth %v", tt.args, tt.yaml, err, r.KeyFile, r.EffectiveClusterAuthMode(), r.AuthRequired())
		}
	}
}

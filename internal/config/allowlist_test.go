package config

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/relaydb/relaydb/internal/allowlist"
)

func TestAllowlistYAMLAndFlags(t *testing.T) {
	for _, tc := range []struct {
		name        string
		yaml        string // "" for none
		args        []string
		wantAddrs   []string
		wantMembers bool
		wantErr     string
	}{
		{name: "default", wantMembers: true},
		{name: "yaml list", yaml: "net:\n  ipAllowlist:\n    addresses: [127.0.0.1/32, 10.0.0.0/8]\n    alwaysAllowMembers: false\n",
			wantAddrs: []string{"127.0.0.1/32", "10.0.0.0/8"}},
		{name: "yaml string", yaml: "net:\n  ipAllowlist:\n    addresses: \"127.0.0.3, ::1\"\n",
			wantAddrs: []string{"127.0.0.3", "::1"}, wantMembers: true},
		{name: "flags", args: []string{"--ipAllowlist=127.0.0.1,127.0.0.3", "--ipAllowlistAlwaysAllowMembers=false"},
			wantAddrs: []string{"127.0.0.1", "127.0.0.3"}},
		{name: "bare bool flag", args: []string{"--ipAllowlistAlwaysAllowMembers"}, wantMembers: true},
		{name: "flag beats file", yaml: "net:\n  ipAllowlist:\n    addresses: [10.0.0.1]\n    alwaysAllowMembers: false\n",
			args: []string{"--ipAllowlist=10.0.0.2"}, wantAddrs: []string{"10.0.0.2"}},
		{name: "bad entry", args: []string{"--ipAllowlist=10.0.0.1/8"}, wantErr: `entry 0 "10.0.0.1/8" is invalid`},
		{name: "bad yaml entry", yaml: "net:\n  ipAllowlist:\n    addresses: [localhost]\n", wantErr: "hostnames"},
		{name: "yaml not a list", yaml: "net:\n  ipAllowlist:\n    addresses: {a: 1}\n", wantErr: "must be a list"},
		{name: "unknown key", yaml: "net:\n  ipAllowlist:\n    ranges: [10.0.0.1]\n", wantErr: "unrecognized option: net.ipAllowlist.ranges"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if tc.yaml != "" {
				args = append([]string{"--config", writeFile(t, tc.yaml)}, args...)
			}
			s, err := parse(t, args...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(s.IPAllowlist.Addresses, tc.wantAddrs) || s.IPAllowlist.MembersAlwaysAllowed() != tc.wantMembers {
				t.Fatalf("allowlist = %q members %v", s.IPAllowlist.Addresses, s.IPAllowlist.MembersAlwaysAllowed())
			}
		})
	}
}

func TestAllowlistPolicySource(t *testing.T) {
	if p, err := (IPAllowlist{}).Policy(); err != nil || p.Source != allowlist.SourceNone || !p.AlwaysAllowMembers {
		t.Fatalf("empty policy = %+v, %v", p, err)
	}
	if p, err := (IPAllowlist{Addresses: []string{"10.0.0.1"}}).Policy(); err != nil || p.Source != allowlist.SourceConfig {
		t.Fatalf("configured policy = %+v, %v", p, err)
	}
}

func TestRouterAllowlistFlags(t *testing.T) {
	var r Router
	fs := flag.NewFlagSet("router", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	BindRouterFlags(fs, &r)
	cfg := writeFile(t, "sharding:\n  configDB: cfg/127.0.0.1:27019\nnet:\n  ipAllowlist:\n    addresses: [127.0.0.3]\n")
	if err := fs.Parse([]string{"--config", cfg}); err != nil {
		t.Fatal(err)
	}
	if err := ResolveRouter(fs, &r); err != nil || !slices.Equal(r.IPAllowlist.Addresses, []string{"127.0.0.3"}) {
		t.Fatalf("router allowlist %q, %v", r.IPAllowlist.Addresses, err)
	}
}

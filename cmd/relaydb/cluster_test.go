package main

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/relaydb/relaydb/internal/cluster"
)

func TestParseUpArgs(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, s cluster.Spec)
		err   string
	}{
		{name: "defaults", args: []string{"--dir", "/c", "--data", "3"}, check: func(t *testing.T, s cluster.Spec) {
			if s.Name != "rs0" || s.Data != 3 || s.Chaining != "auto" || len(s.ExtraArgs) != 0 {
				t.Errorf("spec %+v", s)
			}
		}},
		{name: "all flags", args: []string{"--name", "lab", "--dir", "/c", "--data", "6", "--hidden", "1", "--readonly", "8",
			"--delayed", "1", "--delay", "30", "--arbiter=false", "--base-port", "31000", "--chaining", "auto", "--bin", "/b"},
			check: func(t *testing.T, s cluster.Spec) {
				if s.Name != "lab" || s.Hidden != 1 || s.ReadOnly != 8 || s.Delayed != 1 || s.DelaySecs != 30 ||
					s.BasePort != 31000 || s.Chaining != "auto" || s.Bin != "/b" {
					t.Errorf("spec %+v", s)
				}
			}},
		{name: "serve args after --", args: []string{"--dir", "/c", "--data", "1", "--", "--oplogSize", "64"},
			check: func(t *testing.T, s cluster.Spec) {
				if !slices.Equal(s.ExtraArgs, []string{"--oplogSize", "64"}) {
					t.Errorf("extra args %q", s.ExtraArgs)
				}
			}},
		{name: "stray argument", args: []string{"--dir", "/c", "--data", "1", "oops"}, err: `unexpected argument "oops"`},
		{name: "stray before --", args: []string{"--dir", "/c", "--data", "1", "oops", "--", "x"}, err: `unexpected argument "oops"`},
		{name: "too many voters", args: []string{"--dir", "/c", "--data", "8"}, err: "8 voting members exceed the limit of 7"},
		{name: "no dir", args: []string{"--data", "3"}, err: "--dir"},
		{name: "bad chaining", args: []string{"--dir", "/c", "--data", "3", "--chaining", "yes"}, err: "--chaining"},
		{name: "unknown flag", args: []string{"--dir", "/c", "--data", "3", "--bogus"}, err: "bogus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := parseUpArgs(tt.args)
			if tt.err != "" {
				var ue usageError
				if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.As(err, &ue) {
					t.Fatalf("parseUpArgs(%q) = %v, want a usage error containing %q", tt.args, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseUpArgs(%q): %v", tt.args, err)
			}
			tt.check(t, s)
		})
	}
}

func TestParseDirArgs(t *testing.T) {
	tests := []struct {
		args   []string
		max    int
		dir    string
		pos    []string
		errSub string
	}{
		{args: []string{"--dir", "/c", "m1"}, max: 1, dir: "/c", pos: []string{"m1"}},
		{args: []string{"primary", "--dir", "/c"}, max: 1, dir: "/c", pos: []string{"primary"}},
		{args: []string{"--dir=/c"}, max: 0, dir: "/c"},
		{args: []string{"m1"}, max: 1, errSub: "--dir is required"},
		{args: []string{"--dir", "/c", "m1", "m2"}, max: 1, errSub: "unexpected arguments m2"},
		{args: []string{"--dir", "/c", "extra"}, max: 0, errSub: "unexpected arguments extra"},
	}
	for _, tt := range tests {
		dir, pos, err := parseDirArgs("kill", tt.args, tt.max)
		if tt.errSub != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errSub) {
				t.Errorf("parseDirArgs(%q) err %v, want %q", tt.args, err, tt.errSub)
			}
			continue
		}
		if err != nil || dir != tt.dir || !slices.Equal(pos, tt.pos) {
			t.Errorf("parseDirArgs(%q) = %q %q %v, want %q %q", tt.args, dir, pos, err, tt.dir, tt.pos)
		}
	}
}

func TestClusterMainUsage(t *testing.T) {
	if code := clusterMain(nil); code != exitBadOptions {
		t.Errorf("clusterMain() = %d, want %d", code, exitBadOptions)
	}
	if code := clusterMain([]string{"frobnicate"}); code != exitBadOptions {
		t.Errorf("clusterMain(frobnicate) = %d, want %d", code, exitBadOptions)
	}
	if code := clusterMain([]string{"status", "--dir", t.TempDir()}); code != exitError {
		t.Errorf("cluster status on an empty dir = %d, want %d", code, exitError)
	}
}

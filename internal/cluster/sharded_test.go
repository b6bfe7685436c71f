package cluster

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestShardedParts: a sharded spec lays out a config server set and one
// replica set per shard, each with its role flag, consecutive port ranges
// from the base port, and directories under the cluster's.
func TestShardedParts(t *testing.T) {
	s := ShardedSpec{Dir: "/c", Shards: 2, ShardMembers: 2, ShardArbiter: true, ConfigMembers: 1, BasePort: 30000}
	parts := s.parts()
	type want struct {
		name, dir, role string
		count, base     int
	}
	for i, w := range []want{
		{"cfg", "/c/config", "--configsvr", 1, 30000},
		{"sh0", "/c/sh0", "--shardsvr", 3, 30001},
		{"sh1", "/c/sh1", "--shardsvr", 3, 30004},
	} {
		p := parts[i]
		if p.Name != w.name || filepath.Clean(p.Dir) != w.dir || !slices.Contains(p.ExtraArgs, w.role) ||
			p.Count() != w.count || p.BasePort != w.base {
			t.Errorf("part %d = %s %s %v count %d base %d, want %+v", i, p.Name, p.Dir, p.ExtraArgs, p.Count(), p.BasePort, w)
		}
	}
	if len(parts) != 3 {
		t.Fatalf("%d parts, want 3", len(parts))
	}
}

func TestShardedValidate(t *testing.T) {
	for _, tc := range []struct {
		s    ShardedSpec
		want string
	}{
		{ShardedSpec{Shards: 1}, "directory"},
		{ShardedSpec{Dir: "/c"}, "--shards"},
		{ShardedSpec{Dir: "/c", Shards: 1, ShardMembers: 8}, "at most 7"},
		{ShardedSpec{Dir: "/c", Shards: 1, Routers: -1}, "at least 1"},
	} {
		err := tc.s.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%+v) = %v, want an error mentioning %q", tc.s, err, tc.want)
		}
	}
	if err := (ShardedSpec{Dir: "/c", Shards: 8}).Validate(); err != nil {
		t.Errorf("8 shards of 3 with 3 config servers: %v", err)
	}
}

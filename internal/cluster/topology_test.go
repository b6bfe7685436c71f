package cluster

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestNextShard: add-shard names the next shard never used, takes up's
// member count and arbiter unless told otherwise, and ports after every
// one in use when the cluster has a base port.
func TestNextShard(t *testing.T) {
	yes, no := true, false
	base := ShardedSpec{Dir: "/c", Shards: 2}
	for _, tc := range []struct {
		name    string
		spec    ShardedSpec
		used    []int
		members int
		arbiter *bool
		want    AddedShard
	}{
		{"defaults", base, []int{40000, 40001}, 0, nil, AddedShard{Name: "sh2", Members: 3}},
		{"up's settings", ShardedSpec{Dir: "/c", Shards: 1, ShardMembers: 1, ShardArbiter: true}, nil, 0, nil,
			AddedShard{Name: "sh1", Members: 1, Arbiter: true}},
		{"flags win", ShardedSpec{Dir: "/c", Shards: 1, ShardArbiter: true}, nil, 2, &no, AddedShard{Name: "sh1", Members: 2}},
		{"arbiter flag", base, nil, 0, &yes, AddedShard{Name: "sh2", Members: 3, Arbiter: true}},
		{"base port: after the highest in use", ShardedSpec{Dir: "/c", Shards: 2, BasePort: 30000}, []int{30000, 30012, 30005}, 1, nil,
			AddedShard{Name: "sh2", Members: 1, BasePort: 30013}},
		{"names are never reused", ShardedSpec{Dir: "/c", Shards: 2, Added: []AddedShard{{Name: "sh2", Members: 1}}, Removed: []string{"sh2"}},
			nil, 0, nil, AddedShard{Name: "sh3", Members: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := nextShard(tc.spec, tc.used, tc.members, tc.arbiter); got != tc.want {
				t.Errorf("nextShard = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestPartsAfterChanges: the parts (and so LoadSharded and down) follow
// the shards added and removed.
func TestPartsAfterChanges(t *testing.T) {
	s := ShardedSpec{Dir: "/c", Shards: 3, ShardMembers: 1,
		Added:   []AddedShard{{Name: "sh3", Members: 2, Arbiter: true}, {Name: "sh4", Members: 1}},
		Removed: []string{"sh1", "sh4"}}
	var names []string
	for _, p := range s.parts() {
		names = append(names, p.Name)
	}
	if want := []string{"cfg", "sh0", "sh2", "sh3"}; !slices.Equal(names, want) {
		t.Fatalf("parts %v, want %v", names, want)
	}
	p := s.parts()[3]
	if filepath.Clean(p.Dir) != "/c/sh3" || p.Data != 2 || !p.Arbiter || !slices.Contains(p.ExtraArgs, "--shardsvr") {
		t.Errorf("added part %+v", p)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

// TestWithRemoved: a removal is recorded once, for a known shard that is
// not the last.
func TestWithRemoved(t *testing.T) {
	two := ShardedSpec{Dir: "/c", Shards: 2}
	for _, tc := range []struct {
		name, shard string
		spec        ShardedSpec
		want        []string
		err         string
	}{
		{"first", "sh1", two, []string{"sh1"}, ""},
		{"added one", "sh2", ShardedSpec{Dir: "/c", Shards: 2, Added: []AddedShard{{Name: "sh2", Members: 1}}}, []string{"sh2"}, ""},
		{"unknown", "sh9", two, nil, `no shard "sh9"`},
		{"twice", "sh1", ShardedSpec{Dir: "/c", Shards: 3, Removed: []string{"sh1"}}, nil, `no shard "sh1"`},
		{"last", "sh0", ShardedSpec{Dir: "/c", Shards: 2, Removed: []string{"sh1"}}, nil, "last shard"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := withRemoved(tc.spec, tc.shard)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(got.Removed, tc.want) {
				t.Fatalf("Removed %v (%v), want %v", got.Removed, err, tc.want)
			}
		})
	}
}

// TestShardedStateRoundTrip: the state file keeps the changes; a spec
// without any writes no new field.
func TestShardedStateRoundTrip(t *testing.T) {
	s := ShardedSpec{Dir: "/c", Shards: 2, Added: []AddedShard{{Name: "sh2", Members: 1, BasePort: 31000}}, Removed: []string{"sh0"}}
	b, err := json.Marshal(shardedState{Spec: s})
	if err != nil {
		t.Fatal(err)
	}
	var back shardedState
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back.Spec, s) {
		t.Fatalf("round trip %+v (%v), want %+v", back.Spec, err, s)
	}
	plain, _ := json.Marshal(ShardedSpec{Dir: "/c", Shards: 1})
	if strings.Contains(string(plain), "Added") || strings.Contains(string(plain), "Removed") {
		t.Errorf("a spec without changes writes them: %s", plain)
	}
}

package cluster

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/relaydb/relaydb/internal/config"
)

// fakeMemory makes the members' cache shares come from a machine of gb
// GB without a cgroup limit, for the rest of t.
func fakeMemory(t *testing.T, gb int) {
	old := memSource
	memSource = config.MemSource{ReadFile: func(p string) ([]byte, error) {
		if p == "/proc/meminfo" {
			return []byte(fmt.Sprintf("MemTotal: %d kB\n", gb<<20)), nil
		}
		return nil, os.ErrNotExist
	}}
	t.Cleanup(func() { memSource = old })
}

// cacheFlag is the --cacheSizeMB value in args, or -1.
func cacheFlag(t *testing.T, args []string) int {
	t.Helper()
	i := slices.Index(args, "--cacheSizeMB")
	if i < 0 || i+1 >= len(args) {
		return -1
	}
	n, err := strconv.Atoi(args[i+1])
	if err != nil {
		t.Fatalf("--cacheSizeMB %q", args[i+1])
	}
	return n
}

// TestMembersGetCacheShare (issue #15 item 4): members started on one
// machine split its default cache budget instead of each taking it all,
// unless the user chose a size.
func TestMembersGetCacheShare(t *testing.T) {
	fakeMemory(t, 24)
	machineDefault := (24*1024 - 1024) / 2
	members, err := layout(Spec{Name: "rs", Dir: t.TempDir(), Data: 3}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range members {
		if got := cacheFlag(t, m.Args); got != machineDefault/3 {
			t.Errorf("%s: --cacheSizeMB %d, want %d (a third of %d)", m.Name, got, machineDefault/3, machineDefault)
		}
	}
	s := Spec{Name: "rs", Dir: t.TempDir(), Data: 2, ExtraArgs: []string{"--wiredTigerCacheSizeGB=1"}}.withDefaults()
	if members, err = layout(s); err != nil {
		t.Fatal(err)
	}
	for _, m := range members {
		if got := cacheFlag(t, m.Args); got != -1 {
			t.Errorf("%s: --cacheSizeMB %d added although ExtraArgs set --wiredTigerCacheSizeGB", m.Name, got)
		}
	}
	s = Spec{Name: "rs", Dir: t.TempDir(), Data: 2, MemberArgs: map[string][]string{"m1": {"--cacheSizeMB", "100"}}}.withDefaults()
	if members, err = layout(s); err != nil {
		t.Fatal(err)
	}
	if got := cacheFlag(t, members[0].Args); got != machineDefault/2 {
		t.Errorf("m0: --cacheSizeMB %d, want %d", got, machineDefault/2)
	}
	if got := cacheFlag(t, members[1].Args); got != 100 {
		t.Errorf("m1: --cacheSizeMB %d, want the user's 100", got)
	}
}

// TestShardedMembersShareCache: a sharded cluster's members (config
// servers and shards, 15 here) share one machine budget: no
// oversubscription of 24 GB.
func TestShardedMembersShareCache(t *testing.T) {
	fakeMemory(t, 24)
	machineDefault := (24*1024 - 1024) / 2
	s := ShardedSpec{Dir: t.TempDir(), Shards: 4, ShardMembers: 3, ConfigMembers: 3}
	total := 0
	for _, p := range s.parts() {
		if p.LocalMembers != 15 {
			t.Errorf("part %s: LocalMembers %d, want 15", p.Name, p.LocalMembers)
		}
		members, err := layout(p.withDefaults())
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range members {
			total += cacheFlag(t, m.Args)
		}
	}
	if total > machineDefault || total < machineDefault-15 {
		t.Errorf("15 members' caches total %d MB, want the machine default %d MB shared", total, machineDefault)
	}
}

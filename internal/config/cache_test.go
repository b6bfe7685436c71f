package config

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fakeMachine is a MemSource over the given files (path -> content).
func fakeMachine(files map[string]string) MemSource {
	return MemSource{ReadFile: func(p string) ([]byte, error) {
		if v, ok := files[p]; ok {
			return []byte(v), nil
		}
		return nil, os.ErrNotExist
	}}
}

func meminfo(gb int) string {
	return "MemFree:  1000 kB\nMemTotal:       " + strconv.Itoa(gb<<20) + " kB\n"
}

func TestCacheDefaultFromMachine(t *testing.T) {
	const v2, v1 = "/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"
	cases := []struct {
		name   string
		files  map[string]string
		wantMB int
	}{
		{"24 GB, no cgroup", map[string]string{"/proc/meminfo": meminfo(24)}, (24*1024 - 1024) / 2},
		{"cgroup v2 max", map[string]string{"/proc/meminfo": meminfo(24), v2: "max\n"}, (24*1024 - 1024) / 2},
		{"cgroup v2 4 GB", map[string]string{"/proc/meminfo": meminfo(24), v2: "4294967296\n"}, (4096 - 1024) / 2},
		{"cgroup v1 unlimited", map[string]string{"/proc/meminfo": meminfo(8), v1: "9223372036854771712\n"}, (8192 - 1024) / 2},
		{"cgroup v1 2 GB", map[string]string{"/proc/meminfo": meminfo(8), v1: "2147483648"}, 512},
		{"1 GB machine: floor", map[string]string{"/proc/meminfo": meminfo(1)}, 256},
		{"unknown machine", nil, 256},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s Serve
			if got := s.CacheBudgetMB(fakeMachine(c.files)); got != c.wantMB {
				t.Errorf("CacheBudgetMB = %d, want %d", got, c.wantMB)
			}
		})
	}
}

func TestCacheSettings(t *testing.T) {
	dir := t.TempDir()
	yamlFile := func(body string) string {
		p := filepath.Join(dir, strings.NewReplacer(" ", "", ":", "", "\n", "").Replace(body)+".yaml")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return "--config=" + p
	}
	machine := fakeMachine(map[string]string{"/proc/meminfo": meminfo(24)})
	cases := []struct {
		name   string
		args   []string
		wantMB int
		errSub string
	}{
		{"default", nil, 11776, ""},
		{"flag GB", []string{"--wiredTigerCacheSizeGB", "0.5"}, 512, ""},
		{"flag GB integer", []string{"--wiredTigerCacheSizeGB=2"}, 2048, ""},
		{"flag MB", []string{"--cacheSizeMB=100"}, 100, ""},
		{"yaml GB", []string{yamlFile("storage:\n  wiredTiger:\n    engineConfig:\n      cacheSizeGB: 1.5\n")}, 1536, ""},
		{"yaml GB int", []string{yamlFile("storage: {wiredTiger: {engineConfig: {cacheSizeGB: 3}}}\n")}, 3072, ""},
		{"yaml MB", []string{yamlFile("relaydb:\n  cacheSizeMB: 300\n")}, 300, ""},
		{"flag wins over file", []string{yamlFile("storage: {wiredTiger: {engineConfig: {cacheSizeGB: 4}}}\n"), "--wiredTigerCacheSizeGB=1"}, 1024, ""},
		{"GB too small", []string{"--wiredTigerCacheSizeGB=0.2"}, 0, "wiredTigerCacheSizeGB 0.2 is out of range (0.25-10000)"},
		{"GB zero", []string{"--wiredTigerCacheSizeGB=0"}, 0, "wiredTigerCacheSizeGB 0 is out of range"},
		{"GB too large", []string{"--wiredTigerCacheSizeGB=10001"}, 0, "out of range (0.25-10000)"},
		{"GB not a number", []string{"--wiredTigerCacheSizeGB=lots"}, 0, `"lots" is not a number of gigabytes`},
		{"yaml GB too small", []string{yamlFile("storage: {wiredTiger: {engineConfig: {cacheSizeGB: 0.1}}}\n")}, 0, "wiredTigerCacheSizeGB 0.1 is out of range"},
		{"yaml GB string", []string{yamlFile("storage: {wiredTiger: {engineConfig: {cacheSizeGB: big}}}\n")}, 0, "cacheSizeGB"},
		{"MB negative", []string{"--cacheSizeMB=-1"}, 0, "cacheSizeMB -1 is out of range"},
		{"both", []string{"--cacheSizeMB=100", "--wiredTigerCacheSizeGB=1"}, 0, "not both"},
		{"other wiredTiger options refused", []string{yamlFile("storage: {wiredTiger: {collectionConfig: {blockCompressor: zlib}}}\n")}, 0,
			"unsupported option: storage.wiredTiger.collectionConfig"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := parse(t, c.args...)
			if c.errSub != "" {
				if err == nil || !strings.Contains(err.Error(), c.errSub) {
					t.Fatalf("err %v, want one containing %q", err, c.errSub)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := s.CacheBudgetMB(machine); got != c.wantMB {
				t.Errorf("CacheBudgetMB = %d, want %d", got, c.wantMB)
			}
		})
	}
}

func TestCacheSplit(t *testing.T) {
	s := Serve{CacheSizeMB: 1000}
	block, doc := s.CacheSplitMB(Machine)
	if block+doc != 1000 || block < 1 || doc < 1 {
		t.Errorf("split of 1000 MB = %d + %d", block, doc)
	}
	t.Setenv("RELAYDB_DOCCACHE_PERCENT", "25")
	if block, doc := s.CacheSplitMB(Machine); block != 750 || doc != 250 {
		t.Errorf("25%% split of 1000 MB = %d + %d, want 750 + 250", block, doc)
	}
}

func TestMemberCacheMB(t *testing.T) {
	cases := []struct {
		name    string
		ramGB   int
		members int
		want    int
	}{
		{"one member takes the machine default", 24, 1, 11776},
		{"3 members share it", 24, 3, 11776 / 3},
		{"15 members on 24 GB", 24, 15, 11776 / 15},
		{"small machine: floor 256", 4, 8, 256},
		{"floor would oversubscribe: even share of half", 2, 15, 1024 / 15},
		{"tiny share never below 16 MB", 1, 50, 16},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := fakeMachine(map[string]string{"/proc/meminfo": meminfo(c.ramGB)})
			got := m.MemberCacheMB(c.members)
			if got != c.want {
				t.Errorf("MemberCacheMB(%d) on %d GB = %d, want %d", c.members, c.ramGB, got, c.want)
			}
			if total := got * c.members; got > 16 && total > c.ramGB<<10 {
				t.Errorf("%d members x %d MB oversubscribe %d GB", c.members, got, c.ramGB)
			}
		})
	}
}

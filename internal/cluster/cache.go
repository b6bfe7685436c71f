package cluster

import (
	"strconv"
	"strings"

	"github.com/relaydb/relaydb/internal/config"
)

// memSource reads the machine's memory for the members' cache shares;
// tests replace it with a fake machine.
var memSource = config.Machine

// cacheArgs gives member m an explicit storage cache budget: the machine
// default (WiredTiger's 50% of RAM - 1 GB) divided among every member the
// cluster runs on this machine (config.MemberCacheMB), so many members do
// not each take half the machine. None when the user chose a size (or a
// config file, which may set one) in ExtraArgs or m's MemberArgs.
func cacheArgs(s Spec, m *Member) []string {
	if userSetsCache(s.ExtraArgs) || userSetsCache(s.MemberArgs[m.Name]) {
		return nil
	}
	n := s.LocalMembers
	if n <= 0 {
		n = s.Count()
	}
	return []string{"--cacheSizeMB", strconv.Itoa(memSource.MemberCacheMB(n))}
}

// userSetsCache reports whether args set the cache size or a config file.
func userSetsCache(args []string) bool {
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && (name == "cacheSizeMB" || name == "wiredTigerCacheSizeGB" || name == "config") {
			return true
		}
	}
	return false
}

package command

import (
	"os"
	"runtime"
	"strconv"
	"strings"
)

// procMemMB is the process's resident and virtual sizes in MB, as
// serverStatus.mem reports them: from /proc/self/statm on Linux, which
// counts what lives outside the Go heap (Pebble's block cache and
// memtables, the binary's pages). Elsewhere it falls back to the Go
// runtime's Sys, which undercounts.
func procMemMB(ms *runtime.MemStats) (resident, virtual int32) {
	b, err := os.ReadFile("/proc/self/statm")
	if err == nil {
		f := strings.Fields(string(b))
		if len(f) >= 2 {
			size, err1 := strconv.ParseInt(f[0], 10, 64)
			rss, err2 := strconv.ParseInt(f[1], 10, 64)
			if err1 == nil && err2 == nil {
				page := int64(os.Getpagesize())
				return int32(rss * page >> 20), int32(size * page >> 20)
			}
		}
	}
	return int32(ms.Sys >> 20), int32(ms.Sys >> 20)
}

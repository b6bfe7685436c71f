package config

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/relaydb/relaydb/internal/storage"
)

// The storage cache budget (Pebble's block cache plus the document
// cache), set by mongod's --wiredTigerCacheSizeGB /
// storage.wiredTiger.engineConfig.cacheSizeGB or relaydb's --cacheSizeMB /
// relaydb.cacheSizeMB, else sized from the machine as WiredTiger does.
const (
	MinCacheSizeGB = 0.25  // mongod's range of wiredTigerCacheSizeGB
	MaxCacheSizeGB = 10000 // 10 TB
	// MinDefaultCacheMB is the floor of the machine default, as WiredTiger's.
	MinDefaultCacheMB = 256
	maxCacheSizeMB    = MaxCacheSizeGB * 1024
)

// MemSource reads the machine's memory facts; tests replace ReadFile with
// a fake /proc and /sys.
type MemSource struct {
	ReadFile func(path string) ([]byte, error)
}

// Machine is the running machine's MemSource.
var Machine = MemSource{ReadFile: os.ReadFile}

// cgroupLimitFiles hold a cgroup's memory limit: v2 first, then v1.
var cgroupLimitFiles = []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// RAMBytes is the memory relaydb may use: the smaller of physical memory
// (/proc/meminfo MemTotal) and the cgroup's limit; 0 if neither is known.
func (m MemSource) RAMBytes() uint64 {
	ram := m.memTotal()
	for _, p := range cgroupLimitFiles {
		data, err := m.ReadFile(p)
		if err != nil {
			continue
		}
		limit, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
		if err != nil { // "max": no limit
			break
		}
		if ram == 0 || limit < ram {
			ram = limit // v1's "no limit" is a huge number, above MemTotal
		}
		break
	}
	return ram
}

func (m MemSource) memTotal() uint64 {
	data, err := m.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseUint(f[1], 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// DefaultCacheMB is WiredTiger's default cache size for ram bytes:
// max(50% of (RAM - 1 GB), 256 MB); 256 MB when ram is unknown (0).
func DefaultCacheMB(ram uint64) int {
	mb := int64(ram>>20) - 1024
	return int(max(mb/2, MinDefaultCacheMB))
}

// MemberCacheMB is the cache budget of each of n members sharing one
// machine (relaydb cluster): the machine default divided by n, at least
// 256 MB unless n such floors would exceed half the machine's memory,
// then the even share of half of it (never below 16 MB).
func (m MemSource) MemberCacheMB(n int) int {
	ram := m.RAMBytes()
	total := DefaultCacheMB(ram)
	n = max(n, 1)
	share := total / n
	if share >= MinDefaultCacheMB {
		return share
	}
	half := int(ram>>20) / 2
	if ram == 0 || n*MinDefaultCacheMB <= half {
		return MinDefaultCacheMB
	}
	return max(half/n, 16)
}

// CacheBudgetMB is the configured cache budget in MB: --cacheSizeMB,
// else --wiredTigerCacheSizeGB, else the machine default.
func (s *Serve) CacheBudgetMB(m MemSource) int {
	switch {
	case s.CacheSizeMB > 0:
		return s.CacheSizeMB
	case s.WiredTigerCacheSizeGB != nil:
		return int(*s.WiredTigerCacheSizeGB * 1024)
	}
	return DefaultCacheMB(m.RAMBytes())
}

// CacheSplitMB is CacheBudgetMB split between the block cache and the
// document cache (storage.SplitCache). RELAYDB_DOCCACHE_PERCENT overrides
// the document cache's share for experiments (bench/results/scale.md).
func (s *Serve) CacheSplitMB(m MemSource) (blockMB, docMB int) {
	pct, _ := strconv.Atoi(os.Getenv("RELAYDB_DOCCACHE_PERCENT"))
	return storage.SplitCache(s.CacheBudgetMB(m), pct)
}

func (s *Serve) validateCache() error {
	var errs []error
	if gb := s.WiredTigerCacheSizeGB; gb != nil && (*gb < MinCacheSizeGB || *gb > MaxCacheSizeGB) {
		errs = append(errs, fmt.Errorf("wiredTigerCacheSizeGB %g is out of range (%g-%d)", *gb, MinCacheSizeGB, MaxCacheSizeGB))
	}
	if s.CacheSizeMB < 0 || s.CacheSizeMB > maxCacheSizeMB {
		errs = append(errs, fmt.Errorf("cacheSizeMB %d is out of range (1-%d, 0 = machine default)", s.CacheSizeMB, maxCacheSizeMB))
	}
	if s.WiredTigerCacheSizeGB != nil && s.CacheSizeMB != 0 {
		errs = append(errs, errors.New("set either wiredTigerCacheSizeGB or cacheSizeMB, not both"))
	}
	return errors.Join(errs...)
}

// bindCacheFlags registers --wiredTigerCacheSizeGB and --cacheSizeMB.
func bindCacheFlags(fs *flag.FlagSet, s *Serve) {
	fs.Var((*cacheGBFlag)(s), "wiredTigerCacheSizeGB",
		"storage cache budget in GB (0.25-10000; default 50% of (RAM - 1 GB), at least 256 MB)")
	fs.IntVar(&s.CacheSizeMB, "cacheSizeMB", s.CacheSizeMB,
		"storage cache budget in MB (relaydb's finer form of --wiredTigerCacheSizeGB; 0 = machine default)")
}

func init() {
	serveOptions["storage.wiredTiger.engineConfig.cacheSizeGB"] = func(n *yaml.Node, s *Serve) error {
		var gb float64
		if err := decodeScalar(n, "!!float", &gb); err != nil {
			if err2 := decodeScalar(n, "!!int", &gb); err2 != nil {
				return err
			}
		}
		s.WiredTigerCacheSizeGB = &gb
		return nil
	}
	serveOptions["relaydb.cacheSizeMB"] = intOpt(func(s *Serve) *int { return &s.CacheSizeMB })
}

// cacheGBFlag is --wiredTigerCacheSizeGB; String is "" while unset so
// Resolve re-applies it only when given.
type cacheGBFlag Serve

func (f *cacheGBFlag) String() string {
	if f == nil || f.WiredTigerCacheSizeGB == nil {
		return ""
	}
	return strconv.FormatFloat(*f.WiredTigerCacheSizeGB, 'g', -1, 64)
}

func (f *cacheGBFlag) Set(v string) error {
	gb, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return fmt.Errorf("%q is not a number of gigabytes", v)
	}
	f.WiredTigerCacheSizeGB = &gb
	return nil
}

package storage

import (
	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/bloom"
)

// DefaultCacheSizeMB is the block cache size when Options.CacheSizeMB is 0.
// MongoDB's WiredTiger takes 50% of (RAM - 1 GB); relaydb defaults lower
// because benchmarks run up to 15 members on one machine.
const DefaultCacheSizeMB = 256

// pebbleOptions returns relaydb's Pebble tuning for a document store with
// point reads by _id and many unique-key checks:
//   - a block cache sized for the working set, so reads don't re-decompress
//     blocks on every lookup;
//   - bloom filters on every level, so checks for keys that don't exist
//     (every insert's _id and unique-index probes) skip the files;
//   - 64 MB memtables, fewer flushes under write load.
func pebbleOptions(opts Options) *pebble.Options {
	size := opts.CacheSizeMB
	if size <= 0 {
		size = DefaultCacheSizeMB
	}
	cache := pebble.NewCache(int64(size) << 20)
	// Open takes its own reference; Unref ours once the DB holds it.
	p := &pebble.Options{
		ReadOnly:                    opts.ReadOnly,
		Logger:                      pebbleLogger{opts.Logger},
		Cache:                       cache,
		MemTableSize:                64 << 20,
		MemTableStopWritesThreshold: 4,
		L0CompactionThreshold:       4,
		L0StopWritesThreshold:       1000,
		LBaseMaxBytes:               64 << 20,
		MaxConcurrentCompactions:    func() int { return 2 },
		FormatMajorVersion:          pebble.FormatNewest,
	}
	p.Levels = make([]pebble.LevelOptions, 7)
	for i := range p.Levels {
		l := &p.Levels[i]
		l.BlockSize = 32 << 10
		l.FilterPolicy = bloom.FilterPolicy(10)
		l.FilterType = pebble.TableFilter
		if i > 0 {
			l.TargetFileSize = p.Levels[i-1].TargetFileSize * 2
		}
	}
	p.Levels[0].TargetFileSize = 4 << 20
	p.EnsureDefaults()
	return p
}

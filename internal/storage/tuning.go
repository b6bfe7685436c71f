package storage

import (
	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/bloom"
)

// DefaultCacheSizeMB is the block cache size when Options.CacheSizeMB is 0
// (library users and tests). `relaydb serve` sizes both caches from the
// machine instead (config.Serve.CacheBudgetMB, split by SplitCache).
const DefaultCacheSizeMB = 256

// DefaultDocCachePercent is the document cache's share of a cache budget
// (SplitCache); the block cache takes the rest. Measured with YCSB C on
// 1M records (bench/results/scale.md).
const DefaultDocCachePercent = 50

// SplitCache divides a cache budget of totalMB between Pebble's block
// cache and the document cache: docPercent (1-99; anything else means
// DefaultDocCachePercent) to the document cache, at least 1 MB each.
func SplitCache(totalMB, docPercent int) (blockMB, docMB int) {
	if docPercent < 1 || docPercent > 99 {
		docPercent = DefaultDocCachePercent
	}
	docMB = max(totalMB*docPercent/100, 1)
	return max(totalMB-docMB, 1), docMB
}

// CacheStats is what the engine's two caches may hold and hold now, in
// bytes (serverStatus.wiredTiger.cache).
type CacheStats struct {
	BlockMax, BlockUsed int64 // Pebble's block cache
	DocMax, DocUsed     int64 // the document cache (doccache.go)
}

// CacheStats reports the caches' configured and current sizes.
func (e *Engine) CacheStats() CacheStats {
	block := e.opts.CacheSizeMB
	if block <= 0 {
		block = DefaultCacheSizeMB
	}
	docMax, docUsed := e.cache.sizes()
	return CacheStats{BlockMax: int64(block) << 20, BlockUsed: e.db.Metrics().BlockCache.Size,
		DocMax: docMax, DocUsed: docUsed}
}

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

package storage

import (
	"hash/maphash"
	"sync"
)

// DefaultDocCacheMB is the document cache size when Options.DocCacheMB is 0.
const DefaultDocCacheMB = 64

// docCache keeps recently read documents by key, so a point read by _id
// costs a hash lookup instead of a walk through Pebble's levels.
//
// Invariant: a cached value is the latest committed value of its key.
//   - Every committed batch updates the document keys it wrote (after the
//     commit, before the write is acknowledged): it caches the value it
//     set (write-through, so a document just written reads as a hit, as
//     in WiredTiger's cache) or drops the key, and bumps the generation
//     of the shards it touched.
//   - Batches may reach the cache out of commit order: a shard remembers
//     the newest commit sequence that updated it, and an older batch
//     arriving after it only drops its keys.
//   - A reader that missed records its shard's generation before reading
//     Pebble and inserts only if the generation is unchanged, so a value
//     read before a concurrent commit can never be inserted after it.
//   - Snapshot reads (majority read concern, cursors) never use the cache.
//
// TODO(#15): the map holds a pointer per key and value, so the GC marks
// every cached document (GC marking was 5.2 % of a 600k-record load's
// CPU with the cache written through, bench/results/scale.md). A pointer-free layout (values in ring-buffer
// chunks, a map from key hash to position) would take it out of the GC.
type docCache struct {
	shards   [64]cacheShard
	maxBytes int // per shard
}

type cacheShard struct {
	mu    sync.Mutex
	gen   uint64
	seq   uint64 // newest commit sequence that updated the shard
	m     map[string][]byte
	bytes int
}

var cacheSeed = maphash.MakeSeed()

func newDocCache(mb int) *docCache {
	if mb <= 0 {
		mb = DefaultDocCacheMB
	}
	c := &docCache{maxBytes: mb << 20 / 64}
	for i := range c.shards {
		c.shards[i].m = map[string][]byte{}
	}
	return c
}

func (c *docCache) shard(key []byte) *cacheShard {
	return &c.shards[maphash.Bytes(cacheSeed, key)%uint64(len(c.shards))]
}

// get returns the cached value, or the shard generation to pass to put.
func (c *docCache) get(key []byte) (val []byte, ok bool, gen uint64) {
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[string(key)]
	return v, ok, s.gen
}

// put caches key=val unless a commit touched the shard since gen.
func (c *docCache) put(key, val []byte, gen uint64) {
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != gen {
		return
	}
	s.addLocked(key, val, c.maxBytes)
}

// addLocked caches key=val, evicting at random to stay within maxBytes.
func (s *cacheShard) addLocked(key, val []byte, maxBytes int) {
	s.dropLocked(key)
	size := len(key) + len(val) + 64
	if size > maxBytes/8 {
		return // a document too large to be worth a slot
	}
	for k, v := range s.m { // random eviction: map order is random
		if s.bytes+size <= maxBytes {
			break
		}
		s.bytes -= len(k) + len(v) + 64
		delete(s.m, k)
	}
	s.m[string(key)] = val
	s.bytes += size
}

func (s *cacheShard) dropLocked(key []byte) {
	if old, ok := s.m[string(key)]; ok {
		s.bytes -= len(key) + len(old) + 64
		delete(s.m, string(key))
	}
}

// sizes returns the configured and current bytes of the cache.
func (c *docCache) sizes() (maxBytes, used int64) {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		used += int64(s.bytes)
		s.mu.Unlock()
	}
	return int64(c.maxBytes) * int64(len(c.shards)), used
}

// update applies a committed batch (commit sequence seq) to the cache:
// keys[i] takes vals[i], or is dropped when vals[i] is nil or a batch
// committed after this one has updated the shard already. Later writes
// of a key in keys win.
func (c *docCache) update(keys, vals [][]byte, seq uint64) {
	for i, k := range keys {
		s := c.shard(k)
		s.mu.Lock()
		s.gen++
		if i < len(vals) && vals[i] != nil && seq >= s.seq {
			s.addLocked(k, vals[i], c.maxBytes)
		} else {
			s.dropLocked(k)
		}
		s.seq = max(s.seq, seq)
		s.mu.Unlock()
	}
}

// clear drops everything (a range deletion, committed at seq, touched
// documents).
func (c *docCache) clear(seq uint64) {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		s.gen++
		s.seq = max(s.seq, seq)
		s.m = map[string][]byte{}
		s.bytes = 0
		s.mu.Unlock()
	}
}

// isDocKey reports whether key is a document key (PrefixDocument).
func isDocKey(key []byte) bool { return len(key) > 0 && key[0] == PrefixDocument }

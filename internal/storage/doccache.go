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
//   - Every committed batch invalidates the document keys it wrote (after
//     the commit, before the write is acknowledged), and bumps the
//     generation of the shards it touched.
//   - A reader that missed records its shard's generation before reading
//     Pebble and inserts only if the generation is unchanged, so a value
//     read before a concurrent commit can never be inserted after it.
//   - Snapshot reads (majority read concern, cursors) never use the cache.
type docCache struct {
	shards   [64]cacheShard
	maxBytes int // per shard
}

type cacheShard struct {
	mu    sync.Mutex
	gen   uint64
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
	size := len(key) + len(val) + 64
	if size > c.maxBytes/8 {
		return // a document too large to be worth a slot
	}
	for k, v := range s.m { // random eviction: map order is random
		if s.bytes+size <= c.maxBytes {
			break
		}
		s.bytes -= len(k) + len(v) + 64
		delete(s.m, k)
	}
	if old, ok := s.m[string(key)]; ok {
		s.bytes -= len(key) + len(old) + 64
	}
	s.m[string(key)] = val
	s.bytes += size
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

// invalidate drops keys after their batch committed.
func (c *docCache) invalidate(keys [][]byte) {
	for _, k := range keys {
		s := c.shard(k)
		s.mu.Lock()
		s.gen++
		if old, ok := s.m[string(k)]; ok {
			s.bytes -= len(k) + len(old) + 64
			delete(s.m, string(k))
		}
		s.mu.Unlock()
	}
}

// clear drops everything (a range deletion touched documents).
func (c *docCache) clear() {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		s.gen++
		s.m = map[string][]byte{}
		s.bytes = 0
		s.mu.Unlock()
	}
}

// isDocKey reports whether key is a document key (PrefixDocument).
func isDocKey(key []byte) bool { return len(key) > 0 && key[0] == PrefixDocument }

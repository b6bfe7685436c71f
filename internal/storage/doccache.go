package storage

import (
	"bytes"
	"encoding/binary"
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
// Layout (pointer-free, so the GC never walks the cached documents): each
// shard appends entries (key length, value length, key, value) to one of
// cacheChunks byte chunks used as a ring, and maps the key's 64-bit hash
// to the entry's position (chunk number, offset). A lookup compares the
// stored key, so a hash collision is a miss, never another key's value.
// Bytes once appended are never written again: a chunk grows by moving
// to a larger array, and when the ring is full the oldest chunk is
// retired (its entries leave the index) and a fresh one allocated, so a
// value handed to a reader stays intact however long the reader holds
// it. Eviction is by insertion order, a chunk at a time.
type docCache struct {
	shards    [64]cacheShard
	maxBytes  int // per shard
	chunkSize int // cacheChunks chunks of chunkSize make a shard's budget
}

// cacheChunks is the number of chunks in a shard's ring; an entry larger
// than a chunk is not cached.
const cacheChunks = 8

// entryHeader is the size of an entry's two uint32 lengths.
const entryHeader = 8

type cacheShard struct {
	mu    sync.Mutex
	gen   uint64
	seq   uint64            // newest commit sequence that updated the shard
	index map[uint64]uint64 // key hash -> chunk number<<32 | offset
	ring  [cacheChunks][]byte
	first uint32 // oldest live chunk number
	next  uint32 // chunk number the next new chunk takes
	bytes int    // bytes appended to the live chunks (superseded entries included)
}

var cacheSeed = maphash.MakeSeed()

func newDocCache(mb int) *docCache {
	if mb <= 0 {
		mb = DefaultDocCacheMB
	}
	c := &docCache{maxBytes: mb << 20 / 64}
	c.chunkSize = c.maxBytes / cacheChunks
	for i := range c.shards {
		c.shards[i].index = map[uint64]uint64{}
	}
	return c
}

func (c *docCache) shard(key []byte) (*cacheShard, uint64) {
	h := maphash.Bytes(cacheSeed, key)
	return &c.shards[h%uint64(len(c.shards))], h
}

// get returns the cached value, or the shard generation to pass to put.
// The value is shared: callers must not modify it.
func (c *docCache) get(key []byte) (val []byte, ok bool, gen uint64) {
	s, h := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	val, ok = s.lookupLocked(h, key)
	return val, ok, s.gen
}

// put caches key=val unless a commit touched the shard since gen.
func (c *docCache) put(key, val []byte, gen uint64) {
	s, h := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != gen {
		return
	}
	s.addLocked(h, key, val, c.chunkSize)
}

// entryAt returns the key and value of the entry at pos, ok false when
// pos is not in a live chunk.
func (s *cacheShard) entryAt(pos uint64) (key, val []byte, ok bool) {
	n, off := uint32(pos>>32), int(uint32(pos))
	if n < s.first || n >= s.next {
		return nil, nil, false
	}
	chunk := s.ring[n%cacheChunks]
	klen, vlen := entryLens(chunk, off)
	k := off + entryHeader + klen
	return chunk[off+entryHeader : k : k], chunk[k : k+vlen : k+vlen], true
}

// entryLens reads the key and value lengths of the entry at off.
func entryLens(chunk []byte, off int) (klen, vlen int) {
	return int(binary.LittleEndian.Uint32(chunk[off:])), int(binary.LittleEndian.Uint32(chunk[off+4:]))
}

func (s *cacheShard) lookupLocked(h uint64, key []byte) ([]byte, bool) {
	pos, ok := s.index[h]
	if !ok {
		return nil, false
	}
	k, v, ok := s.entryAt(pos)
	if !ok || !bytes.Equal(k, key) {
		return nil, false
	}
	return v, true
}

// addLocked appends key=val to the head chunk (retiring the oldest chunk
// when the ring is full) and points the index at it.
func (s *cacheShard) addLocked(h uint64, key, val []byte, chunkSize int) {
	delete(s.index, h)
	size := entryHeader + len(key) + len(val)
	if size > chunkSize {
		return // a document too large to be worth a slot
	}
	if s.next == s.first || len(s.ring[(s.next-1)%cacheChunks])+size > chunkSize {
		s.advanceLocked(chunkSize)
	}
	head := &s.ring[(s.next-1)%cacheChunks]
	if cap(*head)-len(*head) < size {
		*head = growChunk(*head, size, chunkSize)
	}
	off := len(*head)
	*head = binary.LittleEndian.AppendUint32(*head, uint32(len(key)))
	*head = binary.LittleEndian.AppendUint32(*head, uint32(len(val)))
	*head = append(append(*head, key...), val...)
	s.index[h] = uint64(s.next-1)<<32 | uint64(off)
	s.bytes += size
}

// advanceLocked starts a new head chunk, retiring the oldest when all
// cacheChunks are live.
func (s *cacheShard) advanceLocked(chunkSize int) {
	if s.next-s.first == cacheChunks {
		s.retireLocked()
	}
	s.ring[s.next%cacheChunks] = make([]byte, 0, min(chunkSize, firstChunkCap))
	s.next++
}

// firstChunkCap is a new chunk's first capacity: chunks grow by doubling
// up to the chunk size, so a cache holding little takes little memory.
const firstChunkCap = 64 << 10

// growChunk returns chunk moved to a larger array (twice its capacity, at
// least room for need more bytes, at most limit). The old array is left
// as it was for the readers still holding values in it; offsets carry over.
func growChunk(chunk []byte, need, limit int) []byte {
	c := min(max(2*cap(chunk), len(chunk)+need), limit)
	return append(make([]byte, 0, c), chunk...)
}

// retireLocked drops the oldest chunk: its entries leave the index (those
// still pointing at it) and the chunk is released, never reused.
func (s *cacheShard) retireLocked() {
	n := s.first
	chunk := s.ring[n%cacheChunks]
	for off := 0; off < len(chunk); {
		klen, vlen := entryLens(chunk, off)
		key := chunk[off+entryHeader : off+entryHeader+klen]
		h := maphash.Bytes(cacheSeed, key)
		if pos, ok := s.index[h]; ok && pos == uint64(n)<<32|uint64(off) {
			delete(s.index, h)
		}
		off += entryHeader + klen + vlen
	}
	s.bytes -= len(chunk)
	s.ring[n%cacheChunks] = nil
	s.first++
}

// dropLocked removes key's entry from the index (its bytes stay until
// their chunk retires). Only the hash is compared: at worst another key
// with the same 64-bit hash is evicted too.
func (s *cacheShard) dropLocked(h uint64) { delete(s.index, h) }

// resetLocked empties the shard.
func (s *cacheShard) resetLocked() {
	s.index = map[uint64]uint64{}
	s.ring = [cacheChunks][]byte{}
	s.first, s.next, s.bytes = 0, 0, 0
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
		s, h := c.shard(k)
		s.mu.Lock()
		s.gen++
		if i < len(vals) && vals[i] != nil && seq >= s.seq {
			s.addLocked(h, k, vals[i], c.chunkSize)
		} else {
			s.dropLocked(h)
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
		s.resetLocked()
		s.mu.Unlock()
	}
}

// isDocKey reports whether key is a document key (PrefixDocument).
func isDocKey(key []byte) bool { return len(key) > 0 && key[0] == PrefixDocument }

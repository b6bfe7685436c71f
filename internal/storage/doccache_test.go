package storage

import (
	"fmt"
	"strconv"
	"sync"
	"testing"
)

func docKey(n int) []byte { return append(DocPrefix(7), []byte(fmt.Sprintf("k%06d", n))...) }

// commitSet writes key=val; a document key (of a collection with no
// catalog entry) goes in a batch marked unlogged, as the invariants check
// requires of documents without an oplog entry.
func commitSet(t testing.TB, e *Engine, key, val []byte) {
	t.Helper()
	b := e.NewBatch()
	b.MarkUnlogged()
	if err := b.Set(key, val); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Commit(b, false); err != nil {
		t.Fatal(err)
	}
}

func TestDocCacheStaleInsertRejected(t *testing.T) {
	c := newDocCache(1)
	k := docKey(1)
	_, _, gen := c.get(k)
	c.update([][]byte{k}, nil, 1) // a commit happened after the reader's Pebble read
	c.put(k, []byte("old"), gen)
	if _, ok, _ := c.get(k); ok {
		t.Fatal("a value read before a commit was cached after it")
	}
	_, _, gen = c.get(k)
	c.put(k, []byte("new"), gen)
	if v, ok, _ := c.get(k); !ok || string(v) != "new" {
		t.Fatalf("get = %q %v, want new", v, ok)
	}
}

// TestDocCacheWriteThrough: a committed set is cached by its commit (a
// read right after a write hits), a delete drops the key, and a batch
// past writeThroughBudget caches only what fits in it.
func TestDocCacheWriteThrough(t *testing.T) {
	e := openMem(t)
	k := docKey(1)
	commitSet(t, e, k, []byte("v1"))
	if v, ok, _ := e.cache.get(k); !ok || string(v) != "v1" {
		t.Fatalf("after commit cache = %q %v, want v1", v, ok)
	}
	b := e.NewBatch()
	b.MarkUnlogged()
	b.Delete(k)
	e.Commit(b, false)
	if _, ok, _ := e.cache.get(k); ok {
		t.Fatal("a deleted document stays cached")
	}
	val := make([]byte, writeThroughBudget/10-1) // 10 fit the budget
	b = e.NewBatch()
	b.MarkUnlogged()
	for i := 10; i < 22; i++ {
		b.Set(docKey(i), val)
	}
	e.Commit(b, false)
	cached := 0
	for i := 10; i < 22; i++ {
		if _, ok, _ := e.cache.get(docKey(i)); ok {
			cached++
		}
	}
	if cached != 10 {
		t.Fatalf("%d of 12 values cached, want the 10 within the budget", cached)
	}
}

// TestDocCacheUpdatesOutOfOrder: a batch reaching the cache after a later
// one updated its shard (or cleared the cache) only drops its keys.
func TestDocCacheUpdatesOutOfOrder(t *testing.T) {
	c := newDocCache(1)
	k := docKey(1)
	c.update([][]byte{k}, [][]byte{[]byte("new")}, 20)
	c.update([][]byte{k}, [][]byte{[]byte("old")}, 10)
	if v, ok, _ := c.get(k); ok {
		t.Fatalf("an older commit left %q cached", v)
	}
	c.clear(30)
	c.update([][]byte{k}, [][]byte{[]byte("before-clear")}, 25)
	if v, ok, _ := c.get(k); ok {
		t.Fatalf("a commit older than the clear left %q cached", v)
	}
	c.update([][]byte{k}, [][]byte{[]byte("v40")}, 40)
	if v, ok, _ := c.get(k); !ok || string(v) != "v40" {
		t.Fatalf("cache = %q %v, want v40", v, ok)
	}
}

func TestDocCacheBoundedBytes(t *testing.T) {
	c := newDocCache(1) // 1 MB over 64 shards
	val := make([]byte, 1000)
	for i := 0; i < 5000; i++ {
		k := docKey(i)
		_, _, gen := c.get(k)
		c.put(k, val, gen)
	}
	total := 0
	for i := range c.shards {
		if c.shards[i].bytes > c.maxBytes {
			t.Fatalf("shard %d holds %d bytes, cap %d", i, c.shards[i].bytes, c.maxBytes)
		}
		total += c.shards[i].bytes
	}
	if total == 0 {
		t.Fatal("nothing cached")
	}
}

func TestEngineGetSeesCommits(t *testing.T) {
	e := openMem(t)
	k := docKey(1)
	commitSet(t, e, k, []byte("v1"))
	if v, _, _ := e.Get(k); string(v) != "v1" { // miss, then cached
		t.Fatalf("get = %q", v)
	}
	commitSet(t, e, k, []byte("v2"))
	if v, _, _ := e.Get(k); string(v) != "v2" {
		t.Fatalf("after update get = %q, want v2", v)
	}
	b := e.NewBatch()
	b.MarkUnlogged()
	b.Delete(k)
	e.Commit(b, false)
	if _, ok, _ := e.Get(k); ok {
		t.Fatal("deleted document still returned")
	}
	commitSet(t, e, k, []byte("v3"))
	e.Get(k)
	b = e.NewBatch()
	b.DeleteRange(DocPrefix(7), PrefixEnd(DocPrefix(7)))
	e.Commit(b, false)
	if _, ok, _ := e.Get(k); ok {
		t.Fatal("document removed by a range deletion still returned")
	}
}

// TestDocCacheConcurrentReadersNeverGoBack: writers bump counters while
// readers read through the cache; a reader never sees a key's value go
// backwards, and afterwards every key reads its last committed value.
func TestDocCacheConcurrentReadersNeverGoBack(t *testing.T) {
	e := openMem(t)
	const keys, rounds = 8, 400
	for i := 0; i < keys; i++ {
		commitSet(t, e, docKey(i), []byte("0"))
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 4)
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := make([]int, keys)
			for {
				select {
				case <-stop:
					return
				default:
				}
				for i := 0; i < keys; i++ {
					v, _, err := e.Get(docKey(i))
					if err != nil {
						errs <- err
						return
					}
					n, _ := strconv.Atoi(string(v))
					if n < last[i] {
						errs <- fmt.Errorf("key %d went back from %d to %d", i, last[i], n)
						return
					}
					last[i] = n
				}
			}
		}()
	}
	for round := 1; round <= rounds; round++ {
		commitSet(t, e, docKey(round%keys), []byte(strconv.Itoa(round)))
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i := 0; i < keys; i++ {
		want := rounds - (rounds-i)%keys
		if i == 0 {
			want = rounds
		}
		if v, _, _ := e.Get(docKey(i)); string(v) != strconv.Itoa(want) {
			t.Fatalf("key %d = %s after the writers, want %d", i, v, want)
		}
	}
}

// TestDocCacheValuesOutliveEviction: a value handed to a reader keeps its
// bytes while writers push the shard's ring round many times (chunks are
// released, never reused), and the index holds only live entries.
func TestDocCacheValuesOutliveEviction(t *testing.T) {
	c := newDocCache(1)
	k := docKey(1)
	c.update([][]byte{k}, [][]byte{[]byte("first value")}, 1)
	held, ok, _ := c.get(k)
	if !ok {
		t.Fatal("a written value is not cached")
	}
	s, _ := c.shard(k)
	val := make([]byte, 500)
	for i := 2; s.first < 3*cacheChunks; i++ {
		if i > 1_000_000 {
			t.Fatal("the ring never went round")
		}
		for j := range val {
			val[j] = byte(i)
		}
		c.update([][]byte{docKey(i)}, [][]byte{val}, uint64(i))
	}
	if string(held) != "first value" {
		t.Fatalf("a value held by a reader changed to %q", held[:min(len(held), 20)])
	}
	if _, ok, _ := c.get(k); ok {
		t.Fatal("the oldest entry survived three turns of its ring")
	}
	live := 0
	for n := s.first; n < s.next; n++ {
		chunk := s.ring[n%cacheChunks]
		for off := 0; off < len(chunk); live++ {
			klen, vlen := entryLens(chunk, off)
			off += entryHeader + klen + vlen
		}
	}
	if len(s.index) > live {
		t.Fatalf("index holds %d entries, the live chunks %d", len(s.index), live)
	}
}

// TestDocCacheHashCollisionMisses: an index entry whose stored key differs
// from the key looked up (two keys with one 64-bit hash) is a miss.
func TestDocCacheHashCollisionMisses(t *testing.T) {
	c := newDocCache(1)
	a, b := docKey(1), docKey(2)
	s, hb := c.shard(b)
	s.mu.Lock()
	s.addLocked(hb, a, []byte("a's value"), c.chunkSize) // b's hash, a's key
	s.mu.Unlock()
	if v, ok, _ := c.get(b); ok {
		t.Fatalf("get(b) returned %q, the entry of another key with its hash", v)
	}
}

package oplog

import (
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The tail cache: the newest visible entries' bytes, kept in memory as
// they become visible, so that tailing readers (each secondary's oplog
// stream, chained members, change streams) are served without a storage
// iterator and seek per batch. A profile of a 15-member primary with
// chaining off put oplog.(*Log).ReadRaw at 15 % of its CPU, nearly all of
// it opening and seeking iterators for one or two new entries.
//
// Invariants (all under Log.mu):
//   - Coverage: ents holds, in ts order, every entry with lo < ts <=
//     visible and no other: retire pushes each committed slot's bytes as
//     the visibility point passes it, in ts order; a committed slot
//     without bytes (none today; defensive) empties the cache and moves lo
//     to its ts.
//   - The bytes are exactly those the entry's storage batch wrote (Append
//     keeps them) and are never modified; readers get copies.
//   - Deletions: the cap truncation evicts the entries it deleted once its
//     batch committed (a reader racing it may still get them, as a read
//     just before it would); TruncateAfter empties the cache before it
//     deletes and again when it moves the top back (resetTop), so a
//     rolled-back entry is never served after its deletion.
//   - Memory: at most tailMaxBytes(maxBytes) bytes; the oldest entries are
//     evicted first (lo moves up) and readers further behind read storage.
type tailCache struct {
	lo    bson.Timestamp // exclusive lower bound of the coverage
	ents  []tailEnt      // live entries are ents[start:]
	start int
	bytes int
	max   int
}

type tailEnt struct {
	ts  bson.Timestamp
	raw []byte
}

// tailCacheMax bounds the cache: 16 MB, at most an eighth of the oplog's cap.
func tailCacheMax(oplogMaxBytes int64) int {
	return int(min(16<<20, oplogMaxBytes/8))
}

// reset empties the cache: it covers nothing newer than vis.
func (t *tailCache) reset(vis bson.Timestamp) {
	t.lo, t.ents, t.start, t.bytes = vis, nil, 0, 0
}

// push appends the entry that just became visible.
func (t *tailCache) push(ts bson.Timestamp, raw []byte) {
	if raw == nil || len(raw) > t.max {
		t.reset(ts)
		return
	}
	t.ents = append(t.ents, tailEnt{ts: ts, raw: raw})
	t.bytes += len(raw)
	for t.bytes > t.max {
		t.evictOldest()
	}
}

// evictOldest drops the oldest live entry. REQUIRES: one is live.
func (t *tailCache) evictOldest() {
	e := &t.ents[t.start]
	t.lo, t.bytes = e.ts, t.bytes-len(e.raw)
	*e = tailEnt{}
	t.start++
	if t.start >= 1024 && t.start*2 >= len(t.ents) {
		t.ents = append([]tailEnt(nil), t.ents[t.start:]...)
		t.start = 0
	}
}

// evictBefore drops the live entries older than ts (the cap truncation
// deleted them).
func (t *tailCache) evictBefore(ts bson.Timestamp) {
	for t.start < len(t.ents) && t.ents[t.start].ts.Before(ts) {
		t.evictOldest()
	}
}

// read returns the cached entries after `after` (at or after it when
// inclusive), at most limit of them (0: no limit) and stopping once
// maxBytes are reached (the entry that reaches it is included), and
// whether the cache covers the request; the slices are shared, not
// copied.
func (t *tailCache) read(after bson.Timestamp, inclusive bool, limit, maxBytes int) ([][]byte, bool) {
	if after.Before(t.lo) || (inclusive && after == t.lo) {
		return nil, false
	}
	live := t.ents[t.start:]
	i := sort.Search(len(live), func(i int) bool {
		if inclusive {
			return !live[i].ts.Before(after)
		}
		return live[i].ts.After(after)
	})
	j, size := i, 0
	for ; j < len(live) && (limit <= 0 || j-i < limit) && size < maxBytes; j++ {
		size += len(live[j].raw)
	}
	out := make([][]byte, j-i)
	for k := range out {
		out[k] = live[i+k].raw
	}
	return out, true
}

// readTail answers a read from the cache: the visibility point, the
// entries (copies) and whether the cache covered the request.
func (l *Log) readTail(after bson.Timestamp, inclusive bool, limit, maxBytes int) (bson.Timestamp, [][]byte, bool) {
	l.mu.Lock()
	vis := l.mu.visible
	shared, ok := l.mu.tail.read(after, inclusive, limit, maxBytes)
	l.mu.Unlock()
	if !ok {
		return vis, nil, false
	}
	total := 0
	for _, raw := range shared {
		total += len(raw)
	}
	buf := make([]byte, 0, total) // one allocation for the copies
	for i, raw := range shared {
		buf = append(buf, raw...)
		shared[i] = buf[len(buf)-len(raw) : len(buf) : len(buf)]
	}
	return vis, shared, true
}

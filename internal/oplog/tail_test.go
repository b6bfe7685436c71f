package oplog

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestTailCacheMatchesStorage drives a small oplog (1 MB cap, so the
// cap truncation runs; a 128 KB tail cache that evicts, or a 4 MB one
// that the truncation must trim) through random
// appends (some committed out of order, some aborted), cap truncations,
// rollbacks that re-use the rolled-back timestamps for new entries, and
// reads; every read must return exactly what storage holds.
func TestTailCacheMatchesStorage(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		f := newFixture(t, nil, 1)
		if seed%2 == 0 { // a cache larger than the oplog: the cap truncation evicts from it
			f.log.mu.Lock()
			f.log.mu.tail.max = 4 << 20
			f.log.mu.Unlock()
		}
		rng := rand.New(rand.NewPCG(seed, 7))
		var written []bson.Timestamp
		hits, reads := 0, 0
		for step := 0; step < 3000; step++ {
			switch p := rng.IntN(100); {
			case p < 55:
				written = append(written, f.writeSome(t, rng)...)
			case p < 62:
				if _, err := f.log.Truncate(); err != nil {
					t.Fatal(err)
				}
			case p < 63 && rng.IntN(8) == 0 && len(written) > 0:
				at := written[rng.IntN(len(written))]
				if _, err := f.log.TruncateAfter(at); err != nil {
					t.Fatal(err)
				}
				written = written[:0]
			default:
				reads++
				if f.checkRead(t, rng, written) {
					hits++
				}
			}
		}
		if hits < reads/4 {
			t.Errorf("seed %d: the cache answered %d of %d reads; the test exercises too little of it", seed, hits, reads)
		}
		_ = f.eng.Close()
	}
}

// writeSome writes one entry, or two committed in reverse order, or one
// aborted; it returns the committed timestamps.
func (f *fixture) writeSome(t *testing.T, rng *rand.Rand) []bson.Timestamp {
	t.Helper()
	pad := string(make([]byte, 100+rng.IntN(6000)))
	doc := bson.D{{Key: "pad", Value: pad}, {Key: "r", Value: rng.Int64()}}
	switch rng.IntN(10) {
	case 0:
		s, b := f.reserveAppend(t, doc)
		b.Close()
		f.log.Abort(s)
		return nil
	case 1:
		s1, b1 := f.reserveAppend(t, doc)
		s2, b2 := f.reserveAppend(t, doc)
		if _, err := f.eng.Commit(b2, false); err != nil {
			t.Fatal(err)
		}
		f.log.Commit(s2) // not visible before s1
		if _, err := f.eng.Commit(b1, false); err != nil {
			t.Fatal(err)
		}
		f.log.Commit(s1)
		return []bson.Timestamp{s1.TS, s2.TS}
	}
	f.now = f.now.Add(time.Duration(rng.IntN(3)) * time.Millisecond)
	return []bson.Timestamp{f.write(t, doc)}
}

// checkRead makes one random read through the cache and compares it with
// the same read from storage; it reports whether the cache answered it.
func (f *fixture) checkRead(t *testing.T, rng *rand.Rand, written []bson.Timestamp) bool {
	t.Helper()
	after := bson.Timestamp{}
	if len(written) > 0 && rng.IntN(8) != 0 {
		after = written[len(written)-1-rng.IntN(min(len(written), 60))]
	}
	incl := rng.IntN(2) == 0
	limit := []int{0, 1, 5, 512}[rng.IntN(4)]
	maxBytes := []int{math.MaxInt, 2000}[rng.IntN(2)]
	_, _, hit := f.log.readTail(after, incl, limit, maxBytes)
	got, err := f.log.ReadRawBytes(after, incl, limit, maxBytes)
	if err != nil {
		t.Fatal(err)
	}
	want, err := f.log.readStore(after, incl, limit, maxBytes, f.log.Visible())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("read after %v incl=%v limit=%d maxBytes=%d (cache hit %v): %d entries, storage has %d",
			after, incl, limit, maxBytes, hit, len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("read after %v incl=%v (cache hit %v): entry %d differs from storage's", after, incl, hit, i)
		}
	}
	return hit
}

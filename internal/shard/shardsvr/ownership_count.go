package shardsvr

import (
	"fmt"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// CountUnowned counts the documents of col in snap whose shard key is in
// no chunk of this shard (exec.UnownedCounter), by scanning the shard key
// index over the ranges of the other shards' chunks (rangeIndex), so a
// count without a query filter through a router costs the orphans, not
// the collection, and still leaves them out (MongoDB's count from the
// collection's metadata counts them). Keys above every chunk (all MaxKey)
// are counted as unowned. A multikey index is not used: a document whose
// key holds an array, which no shard owns, may have entries in an owned
// range; ok is false then, as without a usable index.
func (o ownership) CountUnowned(col *catalog.Collection, snap *catalog.Snapshot) (int64, bool, error) {
	p := o.cm.Pattern()
	idx := rangeIndex(col, p)
	if idx == nil || idx.Multikey {
		return 0, false, nil
	}
	var n int64
	for _, r := range unownedRanges(o.cm, o.shard) {
		blo, bhi := rangeBytes(r.Min, r.Max)
		if key.Compare(r.Max, p.GlobalMax()) >= 0 {
			bhi = nil // to the end of the index
		}
		c, err := countEntries(col, snap, idx, blo, bhi)
		if err != nil {
			return 0, false, err
		}
		n += c
	}
	return n, true, nil
}

// unownedRanges are the chunks of cm not on shard, contiguous ones
// merged, in key order.
func unownedRanges(cm *routing.ChunkManager, shard string) []routing.Chunk {
	var out []routing.Chunk
	for _, c := range cm.Chunks() {
		if c.Shard == shard {
			continue
		}
		if last := len(out) - 1; last >= 0 && key.Compare(out[last].Max, c.Min) == 0 {
			out[last].Max = c.Max
			continue
		}
		out = append(out, routing.Chunk{Min: c.Min, Max: c.Max})
	}
	return out
}

// countEntries counts the documents idx lists in [lo, hi) (nil hi: to
// the end).
func countEntries(col *catalog.Collection, snap *catalog.Snapshot, idx *catalog.Index, lo, hi []byte) (int64, error) {
	it := col.ScanIndexAt(snap, idx, lo, hi, false)
	defer it.Close()
	var n int64
	for _, ok := it.Next(); ok; _, ok = it.Next() {
		n++
	}
	if err := it.Err(); err != nil {
		return 0, fmt.Errorf("count unowned documents of %s: %w", col.NS(), err)
	}
	return n, nil
}

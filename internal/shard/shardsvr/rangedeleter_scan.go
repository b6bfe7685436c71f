package shardsvr

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/storage/keystring"
)

// Finding a range's documents. A chunk range [lo, hi) is a range of shard
// key values in BSON order, which is the byte order of their keystring
// encoding, and the shard key index stores exactly that encoding: a
// document's fields in pattern order (a hashed field as its NumberLong
// hash, a missing field as null), followed by more index fields and the
// record's _id. So the documents of [lo, hi) are the index entries in
// [enc(lo), enc(hi)): an entry with the key hi and a suffix sorts above
// enc(hi) and is left out, one with the key lo is kept. One batch reads
// only the entries it returns (plus any document the index lists whose
// key has an array, which the shard key refuses and which is skipped), so
// it costs O(batch), not O(collection).
//
// The index is usable when its key starts with the pattern's fields, in
// order, each ascending (1) or hashed as the pattern's, and it holds every
// document: not sparse, not partial, no collation (a collated string key
// does not sort as the value). The _id index serves {_id: 1}. Without
// such an index (it was dropped by hand) the store falls back to
// scanning the collection, rescanning from the start for each batch.
//
// Deleted entries leave storage tombstones until compaction, which a scan
// from lo would step over again in every batch (emptying a 30000-document
// range in batches of 128, a batch grew from 2 ms to 8 ms, 1.55 s in
// all): so a task's batch starts at the greatest key the previous one
// deleted (RangeResumer), with a last pass from lo (a 90000-document range
// in batches of 128: 1.4-2.3 s instead of 3.5-3.9 s).

// rangeIndex returns col's index usable to find the documents of a range
// of p, or nil.
func rangeIndex(col *catalog.Collection, p key.Pattern) *catalog.Index {
	for _, idx := range col.Indexes() {
		if indexServesRange(idx, p) {
			return idx
		}
	}
	return nil
}

// indexServesRange reports whether idx's entries, in order, are p's keys
// (see above).
func indexServesRange(idx *catalog.Index, p key.Pattern) bool {
	fs := p.Fields()
	if len(idx.Key) < len(fs) || idx.Sparse || len(idx.Partial) > 0 || hasCollation(idx.Spec) {
		return false
	}
	for i, f := range fs {
		e := idx.Key[i]
		if e.Key != f.Path {
			return false
		}
		if f.Hashed != catalog.IsHashedKey(e.Value) {
			return false
		}
		if n, ok := bsonx.AsFloat64(e.Value); !f.Hashed && (!ok || n <= 0) {
			return false
		}
	}
	return true
}

// hasCollation reports an index spec with a collation other than
// simple.
func hasCollation(spec bson.D) bool {
	c, ok := bsonx.Get(spec, "collation")
	if !ok {
		return false
	}
	d, _ := c.(bson.D)
	loc, _ := bsonx.Get(d, "locale")
	return loc != "simple"
}

// rangeBytes encodes [lo, hi) as index byte bounds: each key's values
// in order, ascending.
func rangeBytes(lo, hi bson.D) (blo, bhi []byte) {
	for _, e := range lo {
		blo = keystring.AppendValue(blo, e.Value, false)
	}
	for _, e := range hi {
		bhi = keystring.AppendValue(bhi, e.Value, false)
	}
	return blo, bhi
}

// scanRange calls fn with each document idx lists in [lo, hi) of p, in
// index order, until fn returns false; it reports how many documents it
// read (the index may list a document whose key has an array: fn sees
// it, inRange refuses it).
func scanRange(col *catalog.Collection, idx *catalog.Index, lo, hi bson.D, fn func(bson.D) bool) (read int, err error) {
	blo, bhi := rangeBytes(lo, hi)
	it := col.ScanIndexAt(nil, idx, blo, bhi, false)
	defer it.Close()
	for {
		raw, ok := it.Next()
		if !ok {
			if err := it.Err(); err != nil {
				return read, fmt.Errorf("scan %s index %s: %w", col.NS(), idx.Name, err)
			}
			return read, nil
		}
		read++
		d, err := bsonx.Decode(raw)
		if err != nil {
			return read, fmt.Errorf("decode a document of %s: %w", col.NS(), err)
		}
		if !fn(d) {
			return read, nil
		}
	}
}

// ScanKeyOrder calls fn with the documents of col whose key of p is in
// [lo, hi), in key order (hashed keys in hash order), through the shard
// key index, until fn returns false; ok is false when col has no index
// usable for p (nothing is scanned). autoSplitVector uses it for hashed
// keys, whose order no find sort gives.
func ScanKeyOrder(col *catalog.Collection, p key.Pattern, lo, hi bson.D, fn func(bson.D) bool) (ok bool, err error) {
	idx := rangeIndex(col, p)
	if idx == nil {
		return false, nil
	}
	_, err = scanRange(col, idx, lo, hi, fn)
	return true, err
}

package catalog

import (
	"bytes"
	"fmt"
	"log/slog"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/storage"
)

// Report is the result of Verify.
type Report struct {
	Collections  int
	Documents    int64
	IndexEntries int64
	OplogEntries int64
	Problems     []string // empty when the data directory is consistent
}

// OK reports whether no problem was found.
func (r *Report) OK() bool { return len(r.Problems) == 0 }

func (r *Report) problem(format string, args ...any) {
	r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
}

// Verify opens dir read-only and checks the format version, that every
// document has exactly its index entries and every entry points to an
// existing document with those keys, and that the oplog is ordered.
func Verify(dir string) (Report, error) {
	eng, err := storage.Open(storage.Options{Dir: dir, ReadOnly: true, Logger: slog.Default()})
	if err != nil {
		return Report{}, err
	}
	defer eng.Close()
	c, err := openOn(eng, Options{Logger: slog.Default()})
	if err != nil {
		return Report{}, err
	}
	return c.verify()
}

// verify checks c's engine. Writers must be quiesced.
func (c *Catalog) verify() (Report, error) {
	var r Report
	for _, db := range c.Databases() {
		for _, coll := range c.Collections(db) {
			r.Collections++
			if err := c.verifyCollection(coll, &r); err != nil {
				return r, err
			}
		}
	}
	return r, c.verifyOplog(&r)
}

// iterSource is what verify reads: the engine (quiesced writers) or a
// storage snapshot (validate on a live catalog).
type iterSource interface {
	NewIter(lo, hi []byte) (*storage.Iter, error)
}

// verifyCollection compares coll's index entries with its documents.
func (c *Catalog) verifyCollection(coll *Collection, r *Report) error {
	_, err := verifyCollectionOn(c.eng, coll, coll.Count(), coll.DataSize(), r)
	return err
}

// verifyCollectionOn checks coll as src holds it against the counters
// wantCount/wantSize and returns the entry count of each index by id
// (the _id index: the documents).
func verifyCollectionOn(src iterSource, coll *Collection, wantCount, wantSize int64, r *Report) (map[uint32]int64, error) {
	want := map[uint32]map[string][]byte{} // index id -> entry key -> value
	var count, size int64
	p := storage.DocPrefix(coll.ID)
	it, err := src.NewIter(p, storage.PrefixEnd(p))
	if err != nil {
		return nil, err
	}
	for ok := it.First(); ok; ok = it.Next() {
		count++
		size += int64(len(it.Value()))
		expectEntries(coll, it.Value(), it.Key()[len(p):], want, r)
	}
	if err := it.Close(); err != nil {
		return nil, err
	}
	r.Documents += count
	if count != wantCount || size != wantSize {
		r.problem("%s: counters say %d docs/%d bytes, found %d/%d", coll.NS(), wantCount, wantSize, count, size)
	}
	keys := map[uint32]int64{}
	for _, idx := range coll.Indexes() {
		if idx.IsID() {
			keys[idx.ID] = count
			continue
		}
		before := r.IndexEntries
		if err := compareIndex(src, coll, idx, want[idx.ID], r); err != nil {
			return nil, err
		}
		keys[idx.ID] = r.IndexEntries - before
	}
	return keys, nil
}

// expectEntries records the entries one document must have.
func expectEntries(coll *Collection, raw, idKS []byte, want map[uint32]map[string][]byte, r *Report) {
	var doc bson.D
	if err := bson.Unmarshal(raw, &doc); err != nil {
		r.problem("%s: undecodable document %x: %v", coll.NS(), idKS, err)
		return
	}
	for _, idx := range coll.Indexes() {
		if idx.IsID() {
			continue
		}
		keys, _, err := indexKeys(idx, doc)
		if err != nil {
			r.problem("%s: index %s: %v", coll.NS(), idx.Name, err)
		}
		if want[idx.ID] == nil {
			want[idx.ID] = map[string][]byte{}
		}
		for _, k := range keys {
			ek, v := entryKV(idx, k, append([]byte(nil), idKS...))
			want[idx.ID][string(ek)] = v
		}
	}
}

// compareIndex checks idx's stored entries against want.
func compareIndex(src iterSource, coll *Collection, idx *Index, want map[string][]byte, r *Report) error {
	p := storage.IndexPrefix(idx.ID)
	it, err := src.NewIter(p, storage.PrefixEnd(p))
	if err != nil {
		return err
	}
	defer it.Close()
	seen := 0
	for ok := it.First(); ok; ok = it.Next() {
		r.IndexEntries++
		v, expected := want[string(it.Key())]
		switch {
		case !expected:
			r.problem("%s: index %s: entry %x points to no document with that key", coll.NS(), idx.Name, it.Key())
		case !bytes.Equal(v, it.Value()):
			r.problem("%s: index %s: entry %x has value %x, want %x", coll.NS(), idx.Name, it.Key(), it.Value(), v)
		default:
			seen++
		}
	}
	if seen != len(want) {
		r.problem("%s: index %s: %d entries missing", coll.NS(), idx.Name, len(want)-seen)
	}
	return it.Error()
}

// verifyOplog checks that entries decode, match their keys, and are ordered.
func (c *Catalog) verifyOplog(r *Report) error {
	lo, hi := storage.OplogBounds()
	it, err := c.eng.NewIter(lo, hi)
	if err != nil {
		return err
	}
	defer it.Close()
	var prev bson.Timestamp
	for ok := it.First(); ok; ok = it.Next() {
		r.OplogEntries++
		ts, _ := storage.OplogTS(it.Key())
		var e struct {
			TS bson.Timestamp `bson:"ts"`
		}
		if err := bson.Unmarshal(it.Value(), &e); err != nil || e.TS != ts {
			r.problem("oplog: entry at %v does not decode to its ts (%v, %v)", ts, e.TS, err)
		}
		if !prev.IsZero() && !ts.After(prev) {
			r.problem("oplog: %v follows %v", ts, prev)
		}
		prev = ts
	}
	return it.Error()
}

// Check runs Verify's checks on the open catalog (tests of the packages
// that write through Apply). Writers must be quiesced.
func (c *Catalog) Check() (Report, error) { return c.verify() }

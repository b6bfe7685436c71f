package catalog

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// ttlBatch bounds the documents one reaper pass deletes per index.
const ttlBatch = 10000

// SetTTLPaused pauses (true) or resumes the TTL monitor. A secondary pauses
// it: only the primary deletes expired documents, and its deletes replicate.
func (c *Catalog) SetTTLPaused(paused bool) { c.ttlPaused.Store(paused) }

// ReapTTL deletes, through Delete (so oplog entries are written), every
// document whose TTL-indexed date (or earliest date in an array) is older
// than now - expireAfterSeconds. It returns the number deleted. It does
// nothing while paused (SetTTLPaused: a secondary).
// TODO(#2): scan the TTL index range instead of the whole collection.
func (c *Catalog) ReapTTL() (int, error) {
	if c.ttlPaused.Load() {
		return 0, nil // not primary: the primary's deletes replicate here
	}
	total := 0
	for _, db := range c.Databases() {
		for _, coll := range c.Collections(db) {
			for _, idx := range coll.Indexes() {
				if idx.ExpireAfterSeconds == nil {
					continue
				}
				n, err := c.reapIndex(coll, idx)
				total += n
				if err != nil {
					return total, err
				}
			}
		}
	}
	return total, nil
}

// reapIndex deletes coll's documents expired according to idx.
func (c *Catalog) reapIndex(coll *Collection, idx *Index) (int, error) {
	cutoff := c.now().Add(-time.Duration(*idx.ExpireAfterSeconds) * time.Second)
	var expired []bson.D
	it := coll.Scan(false)
	for raw, ok := it.Next(); ok && len(expired) < ttlBatch; raw, ok = it.Next() {
		var doc bson.D
		if err := bson.Unmarshal(raw, &doc); err != nil {
			_ = it.Close()
			return 0, err
		}
		if expiredAt(doc, idx.Key[0].Key, cutoff) {
			expired = append(expired, doc)
		}
	}
	if err := it.Close(); err != nil {
		return 0, err
	}
	n := 0
	for _, doc := range expired {
		if _, err := c.Delete(coll, doc); err == nil {
			n++
		} // a concurrent change or drop is not an error: next pass retries
	}
	return n, nil
}

// expiredAt reports whether doc's date at path is before cutoff.
func expiredAt(doc bson.D, path string, cutoff time.Time) bool {
	var isArr bool
	for _, v := range pathValues(doc, path, &isArr) {
		if d, ok := v.(bson.DateTime); ok && d.Time().Before(cutoff) {
			return true
		}
	}
	return false
}

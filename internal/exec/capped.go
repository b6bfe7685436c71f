package exec

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
)

// Capped collections. A collection whose options say {capped: true, size,
// max} keeps at most max documents and about size bytes: after each insert
// the oldest documents are deleted, each delete an ordinary write with its
// own oplog entry (so secondaries, which never evict, stay identical).
//
// Invariants: inserts into one capped collection and their evictions are
// serialised (a stripe of e.locks), so concurrent inserts never evict more than
// the limits ask; an eviction never deletes the document just inserted.
// Natural order is _id order (relaydb keys documents by _id), which is
// insertion order for ObjectId _ids made by one process.
// TODO(#14): a record-id order for capped collections, so natural order
// and eviction follow insertion order whatever the _ids.

// maxEvictPerInsert bounds one insert's evictions (a collMod that shrinks
// the limits is caught up over several inserts).
const maxEvictPerInsert = 10000

// CappedLimits reads a collection's capped options: size in bytes, max
// documents (0: no limit).
func CappedLimits(opts bson.D) (size, max int64, capped bool) {
	for _, o := range opts {
		switch o.Key {
		case "capped":
			capped, _ = o.Value.(bool)
		case "size":
			size, _ = bsonx.AsInt64(o.Value)
		case "max":
			max, _ = bsonx.AsInt64(o.Value)
		}
	}
	return size, max, capped
}

// cappedStripe is the stripe key (with the collection id) that
// serialises a capped collection's inserts; no _id keystring is empty.
var cappedStripe = []byte{}

// lockCapped serialises inserts into col when it is capped; the returned
// function unlocks (a no-op otherwise).
func (e *Engine) lockCapped(col *catalog.Collection) func() {
	if _, _, capped := CappedLimits(col.Options); !capped {
		return func() {}
	}
	return e.locks.lock(col.ID, cappedStripe).Unlock
}

// evictCapped deletes col's oldest documents while it holds more than its
// limits allow, never the document whose _id is keep.
func (e *Engine) evictCapped(col *catalog.Collection, keep any) error {
	size, max, capped := CappedLimits(col.Options)
	if !capped {
		return nil
	}
	live := e.cat.Collection(col.DB, col.Name)
	if live == nil || live.ID != col.ID {
		return nil
	}
	for i := 0; i < maxEvictPerInsert && over(live, size, max); i++ {
		doc, ok, err := oldest(live)
		if err != nil || !ok {
			return err
		}
		if id, _ := bsonx.Get(doc, "_id"); bsonx.Compare(id, keep) == 0 {
			return nil
		}
		if _, err := e.cat.Delete(live, doc); err != nil {
			return err
		}
	}
	return nil
}

func over(col *catalog.Collection, size, max int64) bool {
	return (max > 0 && col.Count() > max) || (size > 0 && col.DataSize() > size)
}

// oldest returns col's first document in natural order.
func oldest(col *catalog.Collection) (bson.D, bool, error) {
	it := col.Scan(false)
	defer it.Close()
	raw, ok := it.Next()
	if !ok {
		return nil, false, it.Err()
	}
	doc, err := bsonx.Decode(raw)
	return doc, err == nil, err
}

package router

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/shard/key"
)

// keyLookupTimeout bounds one routing-table lookup of an event's
// collection (the catalog cache answers at once when it knows it).
const keyLookupTimeout = 5 * time.Second

// keyOf is the shard key of the event's collection: the stream's own on
// a collection stream, the routing table's on a database or cluster
// stream; nil when the collection is not sharded (or its table cannot be
// read: the event keeps its documentKey).
func (m *csMerge) keyOf(ev bson.D) *key.Pattern {
	if m.pattern != nil || m.patternOf == nil {
		return m.pattern
	}
	nsv, _ := bsonx.Get(ev, "ns")
	ns, _ := nsv.(bson.D)
	db, _ := bsonx.Get(ns, "db")
	coll, _ := bsonx.Get(ns, "coll")
	d, okDB := db.(string)
	c, okColl := coll.(string)
	if !okDB || !okColl {
		return nil
	}
	return m.patternOf(d, c)
}

// streamKeyLookup reads a collection's shard key from the catalog cache.
func (r *Router) streamKeyLookup() func(db, coll string) *key.Pattern {
	return func(db, coll string) *key.Pattern {
		ctx, cancel := context.WithTimeout(context.Background(), keyLookupTimeout)
		defer cancel()
		cm, err := r.catalog.get(ctx, db+"."+coll)
		if err != nil || cm == nil {
			return nil
		}
		p := cm.Pattern()
		return &p
	}
}

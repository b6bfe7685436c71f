package changestream

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
)

// noop builds the events of a no-op entry ({op: "n"}): only the
// shardCollection a primary shard notes when its collection is sharded
// ({ns, o2: {shardCollection: ns, shardKey, unique, numInitialChunks,
// presplitHashedZones}}), and only with showExpandedEvents, as MongoDB
// reports it. Every other no-op (a new primary's, a read concern's)
// yields nothing.
func (b builder) noop(op *oplog.Entry, t Token) []Event {
	if !b.o.ShowExpandedEvents || len(op.O2) == 0 || op.O2[0].Key != "shardCollection" {
		return nil
	}
	ns, _ := op.O2[0].Value.(string)
	db, coll := splitNS(ns)
	if coll == "" || ns != op.NS {
		return nil
	}
	evs := b.simple(op, t, "shardCollection", db, coll)
	if len(evs) == 0 {
		return nil
	}
	desc := make(bson.D, 0, len(op.O2)-1)
	for _, f := range op.O2[1:] {
		switch f.Key {
		case "shardKey", "unique", "numInitialChunks", "presplitHashedZones", "capped", "collation":
			desc = append(desc, f)
		}
	}
	evs[0].Doc = append(evs[0].Doc, bson.E{Key: "operationDescription", Value: desc})
	return evs
}

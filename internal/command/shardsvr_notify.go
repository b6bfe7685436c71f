package command

import (
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// shardsvrNotifyShardingEvent writes the no-op oplog entry of a sharding
// event on this (primary) shard, which change streams with
// showExpandedEvents turn into the event (package changestream):
// {op: "n", ns, ui, o: {msg: {shardCollection: ns}}, o2: {shardCollection:
// ns, shardKey, unique, numInitialChunks, presplitHashedZones}}, as
// MongoDB's primary shard writes when a collection is sharded.
func shardsvrNotifyShardingEvent(c *Ctx, r *request.ShardsvrNotifyShardingEvent) (bson.D, error) {
	if err := checkNS(r.NS); err != nil {
		return nil, err
	}
	if r.EventType != "shardCollection" {
		return nil, mongoerr.New(mongoerr.BadValue, "_shardsvrNotifyShardingEvent: unknown eventType %q", r.EventType)
	}
	cat := c.D.eng.Catalog()
	db, coll, _ := strings.Cut(r.NS, ".")
	var ui *bson.Binary
	if cl := cat.Collection(db, coll); cl != nil {
		u := cl.UUID
		ui = &u
	}
	msg := bson.D{{Key: "msg", Value: bson.D{{Key: r.EventType, Value: r.NS}}}}
	detail := append(bson.D{{Key: r.EventType, Value: r.NS}}, r.Details...)
	if _, err := cat.WriteNoopFor(r.NS, ui, msg, detail); err != nil {
		return nil, fmt.Errorf("noting %s of %s in the oplog: %w", r.EventType, r.NS, err)
	}
	return bson.D{}, nil
}

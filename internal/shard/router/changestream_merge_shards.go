package router

import (
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/changestream"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// shardCheckEvery is how often a merged stream rereads config.shards
// for shards added since it opened (mongos watches config.shards).
const shardCheckEvery = time.Second

// csOpen is what a merged stream opens a shard's cursor with.
type csOpen struct {
	aggName any    // the collection, or 1
	spec    bson.D // the client's $changeStream spec
	stages  bson.A // the stages after it
}

// cmdFor is the aggregate opening shard id's cursor with spec.
func (o csOpen) cmdFor(spec bson.D) bson.D {
	st := append(bson.A{bson.D{{Key: "$changeStream", Value: spec}}}, o.stages...)
	return bson.D{{Key: "aggregate", Value: o.aggName}, {Key: "pipeline", Value: st},
		{Key: "cursor", Value: bson.D{{Key: "batchSize", Value: int32(shardBatch)}}}}
}

// addNewShards opens a cursor on each shard added since the stream
// opened, from the stream's position (startFor), or from the shard's
// present when its oplog does not reach back that far (a shard added
// after the position: its earlier entries are its own initiation).
// A removed shard keeps its cursor until the cursor fails.
func (r *Router) addNewShards(c *call, mc *mergedCursor) error {
	m := mc.stream
	if time.Since(m.checked) < shardCheckEvery {
		return nil
	}
	m.checked = time.Now()
	all, err := r.allShards(c.ctx)
	if err != nil {
		return nil // the next check retries; the stream goes on
	}
	ids := make([]string, 0, len(all))
	for id := range all {
		if !slices.ContainsFunc(m.shards, func(s *csShard) bool { return s.id == id }) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		spec := append(withoutStart(m.open.spec),
			bson.E{Key: "startAfter", Value: m.resume.startFor(id).Doc()},
			bson.E{Key: changestream.FromRouterField, Value: true})
		sr := r.send(c, id, r.withClusterTime(m.open.cmdFor(spec)), true)
		if mongoerr.Is(sr.err, mongoerr.ChangeStreamHistoryLost) {
			spec = append(withoutStart(m.open.spec), bson.E{Key: changestream.FromRouterField, Value: true})
			sr = r.send(c, id, r.withClusterTime(m.open.cmdFor(spec)), true)
		}
		if sr.err != nil {
			return fmt.Errorf("opening the change stream on the new shard %s: %w", id, sr.err)
		}
		s := &csShard{id: id, t: sr.t, host: sr.host}
		m.shards = append(m.shards, s)
		if err := s.absorb(sr.reply); err != nil {
			return err
		}
		r.log.Info("change stream watches a new shard", "shard", id, "ns", mc.ns)
	}
	return nil
}

// withoutStart is spec without its start point.
func withoutStart(spec bson.D) bson.D {
	var out bson.D
	for _, e := range spec {
		switch e.Key {
		case "resumeAfter", "startAfter", "startAtOperationTime":
		default:
			out = append(out, e)
		}
	}
	return out
}

package router

import (
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// mongos' codes for a bad collStats scale.
const (
	scaleBelowOne   = mongoerr.CollStatsScaleBelowOne
	scaleNotANumber = mongoerr.CollStatsScaleNotANumber
)

// summedStats are the collStats fields mongos adds up over the shards
// (sizes scaled after summing).
var summedStats = []string{"count", "size", "storageSize", "totalIndexSize", "totalSize"}

// firstShardStats are copied from the first shard's answer: they agree
// across shards.
var firstShardStats = []string{"capped", "max", "userFlags", "indexDetails", "wiredTiger"}

// routeCollStatsCommand serves the collStats command as mongos does: the
// command (without scale) goes to every shard owning a chunk of a sharded
// collection, or to the primary shard of an unsharded one (`sharded:
// false`, `primary`), and the answers are combined: counts and sizes
// summed then scaled, indexSizes summed per index, avgObjSize from the
// shards' unscaled sizes, nindexes the largest, nchunks, and `shards`
// with each shard's own (scaled) answer. handled is false for other
// commands and for admin, config and local.
func (r *Router) routeCollStatsCommand(c *call) (reply bson.D, handled bool, err error) {
	if c.name != "collStats" && c.name != "collstats" {
		return nil, false, nil
	}
	coll, ok := c.cmd[0].Value.(string)
	if !ok || coll == "" || c.db == "admin" || c.db == "config" || c.db == "local" {
		return nil, false, nil
	}
	if err := notInTransaction(c, "collStats"); err != nil {
		return nil, true, err
	}
	scale, err := statsScale(c.cmd)
	if err != nil {
		return nil, true, err
	}
	ns := c.db + "." + coll
	cmd := bson.D{{Key: c.name, Value: coll}}
	head, replies, nchunks, err := r.collStatsTargets(c, ns, cmd)
	if err != nil {
		return nil, true, err
	}
	out, err := combineCollStats(ns, head, replies, scale, nchunks)
	if err != nil {
		return nil, true, err
	}
	return r.gossip(append(out, bson.E{Key: "ok", Value: 1.0})), true, nil
}

// collStatsTargets runs cmd where ns lives; head is {sharded[, primary]}.
func (r *Router) collStatsTargets(c *call, ns string, cmd bson.D) (head bson.D, replies []shardReply, nchunks int32, err error) {
	cm, err := r.catalog.get(c.ctx, ns)
	if err != nil {
		return nil, nil, 0, err
	}
	if cm != nil {
		shards := cm.Shards()
		slices.Sort(shards)
		return bson.D{{Key: "sharded", Value: true}}, r.sendAll(c, shards, true, func(string) bson.D { return cmd }), int32(len(cm.Chunks())), nil
	}
	t, err := r.targetOf(c)
	if err != nil {
		return nil, nil, 0, err
	}
	reply, _, err := t.set.RunOnPrimary(c.ctx, c.db, cmd, true)
	r.observeClusterTime(reply)
	head = bson.D{{Key: "sharded", Value: false}, {Key: "primary", Value: t.id}}
	return head, []shardReply{{shard: t.id, t: t, reply: reply, err: err}}, 1, nil
}

// statsScale reads collStats' scale: a number >= 1 (its integer part),
// 1 when absent.
func statsScale(cmd bson.D) (int64, error) {
	v, ok := bsonx.Get(cmd, "scale")
	if !ok {
		return 1, nil
	}
	f, isNum := bsonx.AsFloat64(v)
	switch {
	case isNum && int64(f) >= 1:
		return int64(f), nil
	case isNum:
		return 0, mongoerr.New(scaleBelowOne, "scale has to be >= 1")
	case v == nil || v == false:
		return 1, nil
	}
	return 0, mongoerr.New(scaleNotANumber, "scale has to be a number >= 1")
}

// combineCollStats adds up the shards' collStats answers as mongos does.
func combineCollStats(ns string, head bson.D, replies []shardReply, scale int64, nchunks int32) (bson.D, error) {
	out := head
	sums := map[string]int64{}
	indexSizes := bson.D{}
	var unscaledSize int64
	var nindexes int32
	perShard := bson.D{}
	for _, sr := range replies {
		if sr.err != nil {
			return nil, sr.err
		}
		res := withoutField(withoutField(sr.reply, "ok"), "$clusterTime")
		res = withoutField(withoutField(res, "operationTime"), "ns")
		count := statInt(res, "count")
		for _, e := range res {
			switch {
			case slices.Contains(firstShardStats, e.Key):
				if _, has := bsonx.Get(out, e.Key); !has {
					out = append(out, e)
				}
			case slices.Contains(summedStats, e.Key):
				sums[e.Key] += statInt(res, e.Key)
			case e.Key == "avgObjSize":
				unscaledSize += statInt(res, e.Key) * count
			case e.Key == "indexSizes":
				indexSizes = addIndexSizes(indexSizes, e.Value)
			case e.Key == "nindexes":
				if n := int32(statInt(res, e.Key)); n > nindexes {
					nindexes = n
				}
			}
		}
		perShard = append(perShard, bson.E{Key: sr.shard, Value: scaleShardStats(res, scale)})
	}
	out = append(out, bson.E{Key: "ns", Value: ns})
	for _, k := range summedStats {
		v := sums[k]
		if k != "count" {
			v /= scale
		}
		out = append(out, bson.E{Key: k, Value: v})
	}
	for i := range indexSizes {
		indexSizes[i].Value = indexSizes[i].Value.(int64) / scale
	}
	avg := 0.0
	if sums["count"] > 0 {
		avg = float64(unscaledSize) / float64(sums["count"])
	}
	return append(out,
		bson.E{Key: "indexSizes", Value: indexSizes},
		bson.E{Key: "avgObjSize", Value: avg},
		bson.E{Key: "maxSize", Value: int64(0)},
		bson.E{Key: "nindexes", Value: nindexes},
		bson.E{Key: "scaleFactor", Value: int32(scale)},
		bson.E{Key: "nchunks", Value: nchunks},
		bson.E{Key: "shards", Value: perShard},
	), nil
}

// addIndexSizes adds a shard's {name: bytes} to sums (in first-seen order).
func addIndexSizes(sums bson.D, v any) bson.D {
	d, _ := v.(bson.D)
	for _, e := range d {
		n, _ := bsonx.AsInt64(e.Value)
		found := false
		for i := range sums {
			if sums[i].Key == e.Key {
				sums[i].Value = sums[i].Value.(int64) + n
				found = true
			}
		}
		if !found {
			sums = append(sums, bson.E{Key: e.Key, Value: n})
		}
	}
	return sums
}

// scaleShardStats divides a shard's byte sizes by scale (a copy).
func scaleShardStats(res bson.D, scale int64) bson.D {
	out := make(bson.D, 0, len(res))
	for _, e := range res {
		switch e.Key {
		case "size", "storageSize", "freeStorageSize", "totalIndexSize", "totalSize":
			n, _ := bsonx.AsInt64(e.Value)
			e.Value = n / scale
		case "indexSizes":
			sizes := addIndexSizes(bson.D{}, e.Value)
			for i := range sizes {
				sizes[i].Value = sizes[i].Value.(int64) / scale
			}
			e.Value = sizes
		case "scaleFactor":
			e.Value = int32(scale)
		}
		out = append(out, e)
	}
	return out
}

func statInt(d bson.D, key string) int64 {
	v, _ := bsonx.Get(d, key)
	n, _ := bsonx.AsInt64(v)
	return n
}

package command

import (
	"context"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// maxStatsCollections bounds the namespaces of one request.
const maxStatsCollections = 100000

// shardsvrGetStatsForBalancing answers MongoDB 7.0's
// {stats: [{namespace, collSize}]} for each collection asked: the bytes
// of its documents on this shard less its orphans (numOrphanDocs of its
// range deletion tasks times the average document size, as MongoDB
// estimates them), divided by scaleFactor; a collection absent here has
// 0. relaydb adds opsPerSec and loadSplitKey, this shard's load on the
// collection over the last sample window (LoadSampler), when it samples.
func shardsvrGetStatsForBalancing(c *Ctx, r *request.ShardsvrGetStatsForBalancing) (bson.D, error) {
	scale := int64(1)
	if r.ScaleFactor != nil {
		if *r.ScaleFactor < 1 {
			return nil, mongoerr.New(mongoerr.BadValue, "scaleFactor must be a positive integer, not %d", *r.ScaleFactor)
		}
		scale = *r.ScaleFactor
	}
	if len(r.Collections) > maxStatsCollections {
		return nil, mongoerr.New(mongoerr.BadValue, "at most %d collections may be asked at once", maxStatsCollections)
	}
	ctx, cancel := c.replContext()
	defer cancel()
	stats := make(bson.A, 0, len(r.Collections))
	for _, v := range r.Collections {
		ns, ok := v.(string)
		if !ok || checkNS(ns) != nil {
			return nil, mongoerr.New(mongoerr.InvalidNamespace, "Invalid namespace specified '%v'", v)
		}
		size, err := c.ownedSize(ctx, ns)
		if err != nil {
			return nil, err
		}
		e := bson.D{{Key: "namespace", Value: ns}, {Key: "collSize", Value: size / scale}}
		if l := loadSamplerOf(c.D); l != nil {
			ops, k := l.Report(ns)
			e = append(e, bson.E{Key: "opsPerSec", Value: ops})
			if k != nil {
				e = append(e, bson.E{Key: "loadSplitKey", Value: k})
			}
		}
		stats = append(stats, e)
	}
	return bson.D{{Key: "stats", Value: stats}}, nil
}

// ownedSize is ns's data size here less the estimated size of its orphans.
func (c *Ctx) ownedSize(ctx context.Context, ns string) (int64, error) {
	db, coll, _ := strings.Cut(ns, ".")
	col := c.D.eng.Catalog().Collection(db, coll)
	if col == nil {
		return 0, nil
	}
	count, size := col.Count(), col.DataSize()
	if count == 0 {
		return 0, nil
	}
	orphans, err := c.numOrphanDocs(ctx, ns)
	if err != nil {
		return 0, err
	}
	return max(0, size-orphans*(size/count)), nil
}

// replyBatch is bsonx.CursorBatch.
func replyBatch(reply bson.D) []bson.D { return bsonx.CursorBatch(reply) }

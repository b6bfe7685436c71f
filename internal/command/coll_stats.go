package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/command/request"
)

func collStats(c *Ctx, p *request.CollStats) (bson.D, error) {
	coll := string(p.Collection)
	stats, err := c.storageStats(coll, 1)
	if err != nil {
		return nil, err
	}
	return append(bson.D{{Key: "ns", Value: c.ns(coll)}}, stats...), nil
}

// storageStats are coll's sizes and counts as collStats and $collStats'
// storageStats report them, sizes divided by scale (>= 1); avgObjSize is
// in bytes, as MongoDB's. Index sizes are not tracked yet (0).
// TODO(#14): index sizes, and storageSize as the bytes on disk.
func (c *Ctx) storageStats(coll string, scale int64) (bson.D, error) {
	if c.DB == "local" && coll == "oplog.rs" {
		return c.oplogStorageStats(scale), nil
	}
	col, err := c.collection(coll)
	if err != nil {
		return nil, err
	}
	if err := c.refuseView(coll); err != nil {
		return nil, err
	}
	count, size := col.Count(), col.DataSize()
	ctx, cancel := c.replContext()
	defer cancel()
	orphans, err := c.numOrphanDocs(ctx, col.NS())
	if err != nil {
		return nil, err
	}
	avg := int64(0)
	if count > 0 {
		avg = size / count
	}
	sizes := bson.D{}
	for _, idx := range col.Indexes() {
		sizes = append(sizes, bson.E{Key: idx.Name, Value: int64(0)})
	}
	return append(bson.D{
		{Key: "size", Value: size / scale},
		{Key: "count", Value: count},
		{Key: "avgObjSize", Value: avg},
		{Key: "numOrphanDocs", Value: orphans},
		{Key: "storageSize", Value: size / scale},
		{Key: "freeStorageSize", Value: int64(0)},
	}, storageStatsTail(col, size, scale, sizes)...), nil
}

// storageStatsTail are storageStats' fields after freeStorageSize.
func storageStatsTail(col *catalog.Collection, size, scale int64, sizes bson.D) bson.D {
	return append(cappedStats(col), bson.D{
		{Key: "nindexes", Value: int32(len(col.Indexes()))},
		{Key: "indexBuilds", Value: bson.A{}},
		{Key: "totalIndexSize", Value: int64(0)},
		{Key: "totalSize", Value: size / scale}, // storageSize + totalIndexSize
		{Key: "indexSizes", Value: sizes},
		{Key: "scaleFactor", Value: int32(scale)},
	}...)
}

// collStatsInfo is the $collStats hook (agg.Env.CollStats) for coll.
func (c *Ctx) collStatsInfo(coll string) func(scale int64) (agg.CollStatsInfo, error) {
	return func(scale int64) (agg.CollStatsInfo, error) {
		info := agg.CollStatsInfo{NS: c.ns(coll), Host: c.D.info.Host}
		stats, err := c.storageStats(coll, scale)
		if err != nil {
			return info, err
		}
		info.Storage = stats
		n, _ := bsonx.Get(stats, "count")
		info.Count, _ = n.(int64)
		return info, nil
	}
}

// oplogStorageStats are local.oplog.rs's storageStats, as MongoDB reports
// them: a capped collection of maxSize bytes (--oplogSize) with no index.
// size and count are the oplog's exact accounting; storageSize is size
// (the bytes on disk are not tracked per collection).
func (c *Ctx) oplogStorageStats(scale int64) bson.D {
	log := c.D.eng.Catalog().Oplog()
	size, count := log.SizeBytes(), log.Count()
	avg := int64(0)
	if count > 0 {
		avg = size / count
	}
	return bson.D{
		{Key: "size", Value: size / scale},
		{Key: "count", Value: count},
		{Key: "avgObjSize", Value: avg},
		{Key: "numOrphanDocs", Value: int64(0)},
		{Key: "storageSize", Value: size / scale},
		{Key: "freeStorageSize", Value: int64(0)},
		{Key: "capped", Value: true},
		{Key: "max", Value: int64(0)},
		{Key: "maxSize", Value: log.MaxBytes() / scale},
		{Key: "nindexes", Value: int32(0)},
		{Key: "indexBuilds", Value: bson.A{}},
		{Key: "totalIndexSize", Value: int64(0)},
		{Key: "totalSize", Value: size / scale},
		{Key: "indexSizes", Value: bson.D{}},
		{Key: "scaleFactor", Value: int32(scale)},
	}
}

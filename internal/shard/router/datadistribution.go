package router

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// notAdminAggregate is MongoDB's code for $shardedDataDistribution
// anywhere but {aggregate: 1} on admin.
const notAdminAggregate = mongoerr.ShardedDataDistributionNotAdmin

// maxDistributionCollections bounds the collections one
// $shardedDataDistribution reports: each costs a request per shard and
// the answer is one batch, which must fit in a reply.
// TODO(#14): a router cursor paging through config.collections.
const maxDistributionCollections = 10000

// routeDataDistribution serves {aggregate: 1, pipeline:
// [{$shardedDataDistribution: {}}, ...]} on admin, as mongos does
// (sh.status() and sh.getShardedDataDistribution() read it): one document
// per sharded collection, {ns, shards: [{shardName, numOrphanedDocs,
// numOwnedDocuments, ownedSizeBytes, orphanedSizeBytes}]}, from each
// owning shard's $collStats storageStats: its numOrphanDocs (what the
// shard's range deletion tasks still have to delete) are the orphans, the
// rest of its count owned, sizes at the average document size, as
// MongoDB's. The stages after it run here.
func (r *Router) routeDataDistribution(c *call) (reply bson.D, handled bool, err error) {
	rest, ok := dataDistributionAggregate(c)
	if !ok {
		return nil, false, nil
	}
	if err := notInTransaction(c, "Aggregation stage $shardedDataDistribution"); err != nil {
		return nil, true, err
	}
	if c.db != "admin" {
		return nil, true, mongoerr.New(notAdminAggregate, "The $shardedDataDistribution stage can only be run on the admin database")
	}
	names, err := r.meta.ShardedCollectionNames(c.ctx)
	if err != nil {
		return nil, true, err
	}
	if len(names) > maxDistributionCollections {
		return nil, true, mongoerr.New(mongoerr.BSONObjectTooLarge, "$shardedDataDistribution: %d sharded collections, at most %d fit in the router's one batch", len(names), maxDistributionCollections)
	}
	docs := make([]bson.D, 0, len(names))
	for _, ns := range names {
		d, err := r.distributionOf(c, ns)
		if err != nil {
			return nil, true, err
		}
		if d != nil {
			docs = append(docs, d)
		}
	}
	if docs, err = runRest(c.db, rest, docs); err != nil {
		return nil, true, err
	}
	return r.gossip(collStatsReply("admin.$cmd.aggregate", docs)), true, nil
}

// dataDistributionAggregate recognises a pipeline starting with
// $shardedDataDistribution (not explained) and returns the stages after it.
func dataDistributionAggregate(c *call) (bson.A, bool) {
	if c.name != "aggregate" {
		return nil, false
	}
	if _, explain := bsonx.Get(c.cmd, "explain"); explain {
		return nil, false
	}
	v, _ := bsonx.Get(c.cmd, "pipeline")
	stages, _ := v.(bson.A)
	if len(stages) == 0 {
		return nil, false
	}
	first, _ := stages[0].(bson.D)
	if len(first) != 1 || first[0].Key != "$shardedDataDistribution" {
		return nil, false
	}
	return stages[1:], true
}

// distributionOf is ns's document: each owning shard's $collStats. A
// collection dropped since config.collections was read gives nil.
func (r *Router) distributionOf(c *call, ns string) (bson.D, error) {
	cm, err := r.catalog.get(c.ctx, ns)
	if err != nil || cm == nil {
		return nil, err
	}
	dbName, coll, _ := strings.Cut(ns, ".")
	onDB := &call{r: c.r, conn: c.conn, db: dbName, cmd: c.cmd, name: c.name, ctx: c.ctx}
	cmd := bson.D{
		{Key: "aggregate", Value: coll},
		{Key: "pipeline", Value: bson.A{bson.D{{Key: "$collStats", Value: bson.D{{Key: "storageStats", Value: bson.D{}}}}}}},
		{Key: "cursor", Value: bson.D{}},
	}
	shards := bson.A{}
	for _, sr := range r.sendAll(onDB, cm.Shards(), true, func(string) bson.D { return cmd }) {
		if sr.err != nil {
			if mongoerr.Is(sr.err, mongoerr.NamespaceNotFound) { // sharded, nothing created on that shard yet
				shards = append(shards, shardDistribution(sr.shard, nil))
				continue
			}
			return nil, sr.err
		}
		batch, _, err := firstBatchOf(sr.reply)
		if err != nil || len(batch) == 0 {
			return nil, mongoerr.New(mongoerr.InternalError, "%s: no $collStats document from %s", ns, sr.shard)
		}
		st, _ := bsonx.Get(batch[0], "storageStats")
		sd, _ := st.(bson.D)
		shards = append(shards, shardDistribution(sr.shard, sd))
	}
	return bson.D{{Key: "ns", Value: ns}, {Key: "shards", Value: shards}}, nil
}

// shardDistribution is shard's entry from its storageStats st (nil:
// nothing there).
func shardDistribution(shard string, st bson.D) bson.D {
	num := func(f string) int64 {
		v, _ := bsonx.Get(st, f)
		n, _ := bsonx.AsInt64(v)
		return n
	}
	count, size, orphans := num("count"), num("size"), num("numOrphanDocs")
	orphans = min(orphans, count)
	avg := int64(0)
	if count > 0 {
		avg = size / count
	}
	return bson.D{
		{Key: "shardName", Value: shard},
		{Key: "numOrphanedDocs", Value: orphans},
		{Key: "numOwnedDocuments", Value: count - orphans},
		{Key: "ownedSizeBytes", Value: size - orphans*avg},
		{Key: "orphanedSizeBytes", Value: orphans * avg},
	}
}

package router

import (
	"context"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// checkMetadataConsistency compares the config servers' metadata with what
// the shards hold, as MongoDB 7.0's command does, and answers a cursor of
// inconsistency documents {type, description, details}. Found:
//   - MisplacedCollection: an unsharded collection on a shard other than
//     its database's primary shard;
//   - MissingShardKeyIndex: a shard owning chunks of a sharded collection
//     has no index that can serve the shard key;
//   - InconsistentIndex: the shards owning chunks disagree on an index;
//   - MissingRoutingTable: config.collections names a collection whose
//     chunks do not cover the key space (or are missing).
//
// Scope: on admin the whole cluster, on another database that database,
// and {checkMetadataConsistency: "<coll>"} one collection. At most
// maxInconsistencies documents are returned, all in the first batch.

const maxInconsistencies = 1000

func init() {
	localCommands["checkMetadataConsistency"] = handler{fn: checkMetadataConsistency}
}

type inconsistencies struct{ docs bson.A }

func newInconsistencies() *inconsistencies { return &inconsistencies{docs: bson.A{}} }

func (in *inconsistencies) add(typ, desc string, details bson.D) {
	if len(in.docs) < maxInconsistencies {
		in.docs = append(in.docs, bson.D{{Key: "type", Value: typ}, {Key: "description", Value: desc}, {Key: "details", Value: details}})
	}
}

func checkMetadataConsistency(c *call) (bson.D, error) {
	coll, _ := c.cmd[0].Value.(string)
	if c.db == "admin" && coll != "" {
		return nil, mongoerr.New(mongoerr.InvalidNamespace, "checkMetadataConsistency on a collection of the admin database is not supported")
	}
	dbs, err := c.r.meta.Databases(c.ctx)
	if err != nil {
		return nil, err
	}
	in := newInconsistencies()
	for _, d := range dbs {
		if c.db != "admin" && d.Name != c.db {
			continue
		}
		if err := c.r.checkDatabase(c.ctx, d, coll, in); err != nil {
			return nil, err
		}
	}
	return bson.D{{Key: "cursor", Value: bson.D{
		{Key: "id", Value: int64(0)},
		{Key: "ns", Value: c.db + ".$cmd.checkMetadataConsistency"},
		{Key: "firstBatch", Value: in.docs},
	}}}, nil
}

// checkDatabase checks one database (only collection coll when set).
func (r *Router) checkDatabase(ctx context.Context, d configsvr.Database, coll string, in *inconsistencies) error {
	sharded, err := r.meta.ShardedCollections(ctx, d.Name)
	if err != nil {
		return err
	}
	isSharded := map[string]bool{}
	for _, sc := range sharded {
		isSharded[sc.NS] = true
		if coll == "" || sc.NS == d.Name+"."+coll {
			if err := r.checkShardedCollection(ctx, sc, in); err != nil {
				return err
			}
		}
	}
	shards, err := r.allShards(ctx)
	if err != nil {
		return err
	}
	for id, s := range shards {
		if id == d.Primary {
			continue
		}
		if err := checkMisplaced(ctx, id, s, d.Name, coll, isSharded, in); err != nil {
			return err
		}
	}
	return nil
}

// checkMisplaced reports the unsharded collections of db on shard id.
func checkMisplaced(ctx context.Context, id string, s *replSet, db, coll string, isSharded map[string]bool, in *inconsistencies) error {
	cmd := bson.D{{Key: "listCollections", Value: 1}, {Key: "filter", Value: bson.D{{Key: "type", Value: "collection"}}}}
	reply, err := s.Run(ctx, db, cmd, true)
	if err != nil {
		return err
	}
	for _, info := range firstBatch(reply) {
		name, _ := bsonx.Get(info, "name")
		n, _ := name.(string)
		ns := db + "." + n
		if n == "" || strings.HasPrefix(n, "system.") || isSharded[ns] || (coll != "" && n != coll) {
			continue
		}
		infoDoc, _ := bsonx.Get(info, "info")
		d, _ := infoDoc.(bson.D)
		uuid, _ := bsonx.Get(d, "uuid")
		in.add("MisplacedCollection", "Unsharded collection found on shard different from database primary shard",
			bson.D{{Key: "namespace", Value: ns}, {Key: "shard", Value: id}, {Key: "localUUID", Value: uuid}})
	}
	return nil
}

// checkShardedCollection checks the routing table of sc and the shard key
// index and index set on every shard that owns chunks of it.
func (r *Router) checkShardedCollection(ctx context.Context, sc routing.Collection, in *inconsistencies) error {
	cm, found, err := r.meta.RoutingTable(ctx, sc.NS)
	if err != nil || !found {
		desc := "Found sharded collection without a routing table"
		if err != nil {
			desc = "Found sharded collection whose chunks do not cover the key space: " + err.Error()
		}
		in.add("MissingRoutingTable", desc, bson.D{{Key: "namespace", Value: sc.NS}})
		return nil
	}
	db, coll, _ := strings.Cut(sc.NS, ".")
	byShard := map[string][]bson.D{}
	for _, id := range cm.Shards() {
		s, err := r.shard(ctx, id)
		if err != nil {
			return err
		}
		reply, err := s.Run(ctx, db, bson.D{{Key: "listIndexes", Value: coll}}, true)
		if err != nil && !mongoerr.Is(err, mongoerr.NamespaceNotFound) {
			return err
		}
		byShard[id] = firstBatch(reply)
		if !slices.ContainsFunc(byShard[id], func(ix bson.D) bool { return usableIndex(ix, sc.Key, false) }) {
			in.add("MissingShardKeyIndex", "Found sharded collection without a shard key index",
				bson.D{{Key: "namespace", Value: sc.NS}, {Key: "shard", Value: id}, {Key: "shardKey", Value: sc.Key.Doc()}})
		}
	}
	checkIndexSets(sc.NS, byShard, in)
	return nil
}

// checkIndexSets reports each index name that some shards owning chunks
// have and others lack.
func checkIndexSets(ns string, byShard map[string][]bson.D, in *inconsistencies) {
	has := map[string][]string{} // index name -> shards
	ids := make([]string, 0, len(byShard))
	for id, ixs := range byShard {
		ids = append(ids, id)
		for _, ix := range ixs {
			name, _ := bsonx.Get(ix, "name")
			if n, _ := name.(string); n != "" {
				has[n] = append(has[n], id)
			}
		}
	}
	slices.Sort(ids)
	names := make([]string, 0, len(has))
	for n := range has {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if len(has[n]) == len(ids) {
			continue
		}
		missing := bson.A{}
		for _, id := range ids {
			if !slices.Contains(has[n], id) {
				missing = append(missing, id)
			}
		}
		in.add("InconsistentIndex", "Found an index of a sharded collection that is inconsistent between different shards",
			bson.D{{Key: "namespace", Value: ns}, {Key: "info", Value: bson.D{
				{Key: "indexName", Value: n}, {Key: "missingFromShards", Value: missing}}}})
	}
}

package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/collation"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// Collations through the router: an unsharded collection's commands go
// to its primary shard unchanged; on a sharded collection the command
// (collation included) runs on every targeted shard, each applying it.
// The router's own merging (distinct's values, the merge sort of a find
// or aggregate, an aggregate's merge part: $group, $sort, $lookup...)
// runs under the command's collation.
// TODO(#14): a sharded collection's default collation is applied
// neither when targeting nor when merging; a view's merge (views.go).

// targetable is the part of a filter of c's command the router may
// target by under the command's collation (routing.ForCollation).
func (c *call) targetable(filter bson.D) bson.D {
	coll, _ := bsonx.Get(c.cmd, "collation")
	return routing.ForCollation(filter, coll)
}

// stmtTargetable is the filter field of a write statement (or of a
// findAndModify command) as the router may target by it under the
// statement's collation.
func stmtTargetable(stmt bson.D, field string) bson.D {
	coll, _ := bsonx.Get(stmt, "collation")
	return routing.ForCollation(docField(stmt, field), coll)
}

// collator is the collator of c's command for the router's own merging
// (distinct, merge sorts, an aggregate's merge part); nil for the simple
// collation or an invalid spec (the shards answer that error).
func (c *call) collator() *collation.Collator {
	v, _ := bsonx.Get(c.cmd, "collation")
	d, _ := v.(bson.D)
	s, err := collation.Parse(d)
	if err != nil {
		return nil
	}
	return collation.New(s)
}

// bsonColl is c as bsonx takes it: a nil interface for the simple
// collation.
func bsonColl(c *collation.Collator) bsonx.Collator {
	if c == nil {
		return nil
	}
	return c
}

// checkSimpleKeyCollation is MongoDB's rule for sharding a collection with
// a default collation (listCollections entry info): shardCollection must
// say collation {locale: "simple"} (any other was refused already).
func checkSimpleKeyCollation(cmd, info bson.D) error {
	if _, has := bsonx.GetPath(info, "options.collation"); !has {
		return nil
	}
	if _, given := bsonx.Get(cmd, "collation"); given {
		return nil
	}
	return mongoerr.New(mongoerr.BadValue,
		"Please specify an explicit collation of {locale: 'simple'} when sharding a collection with a non-simple default collation")
}

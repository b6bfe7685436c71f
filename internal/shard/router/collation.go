package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

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

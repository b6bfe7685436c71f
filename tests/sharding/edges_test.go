package sharding

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// TestRouterCommandAliases (issue #14 item 6): every old command name
// mongos accepts runs through the router as the command itself, on an
// unsharded and a sharded collection, and listCommands lists none of them
// but isMaster, as mongos.
func TestRouterCommandAliases(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addshard", Value: seed(tp.shards[name])}}).Err(), "addshard %s", name)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardcollection", Value: "al.sharded"}, {Key: "key", Value: bson.D{{Key: "x", Value: 1}}}}).Err(), "shardcollection")
	db := cl.Database("al")
	for _, coll := range []string{"plain", "sharded"} {
		_, err := db.Collection(coll).InsertMany(ctxT(t), []any{bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: int32(1)}}, bson.D{{Key: "_id", Value: 2}, {Key: "x", Value: int32(2)}}})
		must(t, err, "insert into %s", coll)
		_, err = db.Collection(coll).Indexes().CreateOne(ctxT(t), mongo.IndexModel{Keys: bson.D{{Key: "a", Value: 1}}})
		must(t, err, "createIndexes on %s", coll)
		for _, cmd := range []bson.D{
			{{Key: "collstats", Value: coll}},
			{{Key: "findandmodify", Value: coll}, {Key: "query", Value: bson.D{{Key: "x", Value: int32(1)}}}, {Key: "update", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}}},
			{{Key: "deleteIndexes", Value: coll}, {Key: "index", Value: "a_1"}},
			{{Key: "dbstats", Value: 1}},
		} {
			var res bson.M
			must(t, db.RunCommand(ctxT(t), cmd).Decode(&res), "%s on %s", cmd[0].Key, coll)
			if cmd[0].Key == "findandmodify" && res["value"] == nil {
				t.Errorf("findandmodify on %s found nothing: %v", coll, res)
			}
		}
	}
	for _, cmd := range []string{"buildinfo", "ismaster", "isMaster", "listshards", "flushrouterconfig"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: cmd, Value: 1}}).Err(), "%s", cmd)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "movechunk", Value: "al.sharded"}, {Key: "find", Value: bson.D{{Key: "x", Value: int32(1)}}},
		{Key: "to", Value: otherShard(chunkOwner(t, tp, "al.sharded", 1))}}).Err(), "movechunk")

	if got := chunkOwner(t, tp, "al.sharded", 1); got == "" {
		t.Fatal("no owner after movechunk")
	}
	var lc struct{ Commands bson.M }
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "listCommands", Value: 1}}).Decode(&lc), "listCommands")
	for _, old := range []string{"addshard", "buildinfo", "collstats", "dbstats", "deleteIndexes", "findandmodify", "flushrouterconfig",
		"ismaster", "listshards", "movechunk", "moveprimary", "removeshard", "shardcollection", "enablesharding", "getshardversion"} {
		if _, listed := lc.Commands[old]; listed {
			t.Errorf("listCommands lists the old name %s", old)
		}
	}
	for _, name := range []string{"isMaster", "hello", "dbStats", "collStats", "findAndModify", "moveChunk", "addShard"} {
		if _, listed := lc.Commands[name]; !listed {
			t.Errorf("listCommands lacks %s", name)
		}
	}
}

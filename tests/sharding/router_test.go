package sharding

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestRouterUnsharded is stage 1 of docs/sharding.md end to end: one
// cluster, checked step by step (each step needs the ones before).
func TestRouterUnsharded(t *testing.T) {
	tp := startTopo(t)
	cl, kinds := connectRouter(t, tp)
	admin := cl.Database("admin")

	t.Run("hello", func(t *testing.T) {
		var h bson.M
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "hello", Value: 1}}).Decode(&h), "hello")
		if h["msg"] != "isdbgrid" || h["isWritablePrimary"] != true {
			t.Fatalf("hello = %v, want msg isdbgrid and isWritablePrimary", h)
		}
		if _, ok := h["setName"]; ok {
			t.Fatalf("a router's hello has no setName: %v", h)
		}
		// The same limits as a data node's hello.
		var node bson.M
		shard := tp.shardClient(t, "sh0")
		must(t, shard.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "hello", Value: 1}}).Decode(&node), "shard hello")
		for _, k := range []string{"maxWireVersion", "minWireVersion", "maxBsonObjectSize", "maxMessageSizeBytes", "maxWriteBatchSize", "logicalSessionTimeoutMinutes"} {
			if h[k] != node[k] {
				t.Errorf("router %s = %v, data node %v", k, h[k], node[k])
			}
		}
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "ping", Value: 1}}).Err(), "ping")
		// A config server member says so, as mongod --configsvr.
		cfgc, err := tp.cfg.Client(tp.cfg.Members()[0])
		must(t, err, "config server client")
		var ch bson.M
		must(t, cfgc.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "hello", Value: 1}}).Decode(&ch), "config server hello")
		if ch["configsvr"] != int32(2) {
			t.Errorf("config server hello configsvr = %v, want 2", ch["configsvr"])
		}
		var ss bson.M
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "serverStatus", Value: 1}}).Decode(&ss), "serverStatus")
		if ss["process"] != "mongos" {
			t.Errorf("serverStatus.process = %v, want mongos", ss["process"])
		}
	})

	t.Run("driver sees mongos", func(t *testing.T) {
		// A session round trip: the driver selected the router as a
		// mongos, so the topology is Sharded.
		err := cl.UseSession(ctxT(t), func(ctx context.Context) error {
			return admin.RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err()
		})
		must(t, err, "session ping")
		if k := kinds.last(); k != "Sharded" {
			t.Fatalf("driver topology kind = %q (history %s), want Sharded", k, kinds)
		}
	})

	t.Run("addShard", func(t *testing.T) {
		for _, name := range []string{"sh0", "sh1"} {
			var res bson.M
			must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Decode(&res), "addShard %s", name)
			if res["shardAdded"] != name {
				t.Fatalf("addShard %s = %v", name, res)
			}
		}
		// Again: idempotent, as MongoDB.
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards["sh0"])}}).Err(), "addShard sh0 again")
		var ls struct {
			Shards []struct {
				ID    string `bson:"_id"`
				Host  string `bson:"host"`
				State int32  `bson:"state"`
			} `bson:"shards"`
		}
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "listShards", Value: 1}}).Decode(&ls), "listShards")
		if len(ls.Shards) != 2 || ls.Shards[0].ID != "sh0" || ls.Shards[1].ID != "sh1" ||
			ls.Shards[0].Host != seed(tp.shards["sh0"]) || ls.Shards[1].State != 1 {
			t.Fatalf("listShards = %+v", ls.Shards)
		}
	})

	t.Run("addShard refusals", func(t *testing.T) {
		standalone := harness.Start(t)
		sa := "127.0.0.1:" + itoa(standalone.Port())
		dead := deadHost(t)
		tests := []struct {
			conn string
			code int32
			msg  string
		}{
			{sa, 96, "did not return a set name"}, // OperationFailed: not a replica set
			{"rsX/" + sa, 96, "did not return a set name"},
			{tp.shards["sh0"].Members()[0].Host, 96, "host is part of set sh0"},
			{"other/" + tp.shards["sh1"].Members()[0].Host, 96, "does not match the actual set name sh1"},
			{"rsY/" + dead, 6, "couldn't connect"},        // HostUnreachable
			{tp.router.Host(), 20, "cannot add a mongos"}, // IllegalOperation
			{seed(tp.cfg), 96, "since it is a config server"},
		}
		for _, tt := range tests {
			err := admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: tt.conn}}).Err()
			var ce mongo.CommandError
			if !errors.As(err, &ce) || ce.Code != tt.code || !strings.Contains(ce.Message, tt.msg) {
				t.Errorf("addShard %s: %v, want code %d and %q", tt.conn, err, tt.code, tt.msg)
			}
		}
		err := cl.Database("test").RunCommand(ctxT(t), bson.D{{Key: "listShards", Value: 1}}).Err()
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != 13 {
			t.Errorf("listShards on a non-admin db: %v, want Unauthorized", err)
		}
	})

	t.Run("crud on primary shards", func(t *testing.T) {
		testCRUD(t, tp, cl)
	})

	t.Run("pass through", func(t *testing.T) { testPassThrough(t, tp, cl) })
	t.Run("transactions", func(t *testing.T) { testTransactions(t, tp, cl) })
	t.Run("admin", func(t *testing.T) { testAdmin(t, cl) })
	t.Run("shard restart", func(t *testing.T) { testShardRestart(t, tp, cl) })
	t.Run("two routers", func(t *testing.T) { testTwoRouters(t, tp, cl) })
	t.Run("secondary reads", func(t *testing.T) { testSecondaryReads(t, tp, cl) })

	t.Run("getMore", func(t *testing.T) {
		coll := cl.Database("dba").Collection("many")
		docs := make([]any, 25)
		for i := range docs {
			docs[i] = bson.D{{Key: "_id", Value: i}}
		}
		_, err := coll.InsertMany(ctxT(t), docs)
		must(t, err, "insert 25")
		cur, err := coll.Find(ctxT(t), bson.D{}, options.Find().SetBatchSize(4).SetSort(bson.D{{Key: "_id", Value: 1}}))
		must(t, err, "find")
		n := 0
		for cur.Next(ctxT(t)) {
			var d struct {
				ID int `bson:"_id"`
			}
			must(t, cur.Decode(&d), "decode")
			if d.ID != n {
				t.Fatalf("document %d has _id %d", n, d.ID)
			}
			n++
		}
		must(t, cur.Err(), "cursor")
		if n != 25 {
			t.Fatalf("read %d documents through getMore, want 25", n)
		}
		// An abandoned cursor is killed through the router.
		cur, err = coll.Find(ctxT(t), bson.D{}, options.Find().SetBatchSize(2))
		must(t, err, "find")
		must(t, cur.Close(ctxT(t)), "killCursors")
		err = cl.Database("dba").RunCommand(ctxT(t), bson.D{{Key: "getMore", Value: int64(12345)}, {Key: "collection", Value: "many"}}).Err()
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != 43 {
			t.Errorf("getMore of an unknown cursor: %v, want CursorNotFound", err)
		}
	})

	t.Run("listDatabases", func(t *testing.T) {
		names, err := cl.ListDatabaseNames(ctxT(t), bson.D{})
		must(t, err, "listDatabases")
		for _, want := range []string{"dba", "dbb", "config"} {
			found := false
			for _, n := range names {
				found = found || n == want
			}
			if !found {
				t.Errorf("listDatabases = %v, missing %s", names, want)
			}
		}
	})
}

func deadHost(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err, "listen")
	addr := l.Addr().String()
	l.Close()
	return addr
}

package sharding

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/relaydb/relaydb/tests/harness"
)

// testPassThrough: concerns, sessions and errors go through the router
// unchanged. Runs after testCRUD (dba on sh0, dbb on sh1).
func testPassThrough(t *testing.T, tp *topo, cl *mongo.Client) {
	coll := cl.Database("dba").Collection("pass",
		options.Collection().SetWriteConcern(writeconcern.Majority()).SetReadConcern(readconcern.Majority()))
	_, err := coll.InsertOne(ctxT(t), bson.D{{Key: "_id", Value: "x"}, {Key: "v", Value: 1}})
	must(t, err, "w:majority insert")
	if n, err := coll.CountDocuments(ctxT(t), bson.D{}); err != nil || n != 1 {
		t.Fatalf("majority read: %d %v", n, err)
	}
	// A duplicate key comes back as the shard reported it.
	_, err = coll.InsertOne(ctxT(t), bson.D{{Key: "_id", Value: "x"}})
	var we mongo.WriteException
	if !errors.As(err, &we) || len(we.WriteErrors) != 1 || we.WriteErrors[0].Code != 11000 {
		t.Fatalf("duplicate insert: %v, want a write error 11000", err)
	}
	// A command error too (the shard's code and message).
	err = cl.Database("dba").RunCommand(ctxT(t), bson.D{{Key: "find", Value: int32(1)}}).Err()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 73 {
		t.Fatalf("find with a bad collection name: %v, want InvalidNamespace", err)
	}
	// findAndModify in a session (lsid and txnNumber go through: the driver
	// retries writes against a mongos).
	err = cl.UseSession(ctxT(t), func(ctx context.Context) error {
		return coll.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: "x"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "v", Value: 1}}}}).Err()
	})
	must(t, err, "findAndModify in a session")
	// A causally consistent session over both shards: sh0's majority read
	// after 200 writes on sh1 waits for sh0's clock, which the gossiped
	// $clusterTime moves forward (before, it could wait forever).
	err = cl.UseSessionWithOptions(ctxT(t), options.Session().SetCausalConsistency(true), func(ctx context.Context) error {
		docs := make([]any, 200)
		for i := range docs {
			docs[i] = bson.D{{Key: "_id", Value: "c" + strconv.Itoa(i)}}
		}
		if _, err := cl.Database("dbb").Collection("causal").InsertMany(ctx, docs); err != nil {
			return err
		}
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "after"}}); err != nil {
			return err
		}
		n, err := coll.CountDocuments(ctx, bson.D{})
		if err == nil && n != 2 {
			err = errors.New("count after the causal write: " + strconv.FormatInt(n, 10))
		}
		return err
	})
	must(t, err, "causal session over both shards")
	// Compressed traffic (the router answers in the client's compressor).
	for _, comp := range []string{"zstd", "snappy", "zlib"} {
		cc, err := mongo.Connect(options.Client().ApplyURI(tp.router.URI()).SetCompressors([]string{comp}))
		must(t, err, "connect with %s", comp)
		n, err := cc.Database("dba").Collection("things").CountDocuments(ctxT(t), bson.D{})
		_ = cc.Disconnect(context.Background())
		if err != nil || n != 2 {
			t.Fatalf("count over %s: %d %v", comp, n, err)
		}
	}
	// The router's own view of config.shards, read on the config servers.
	n, err := cl.Database("config").Collection("shards").CountDocuments(ctxT(t), bson.D{})
	if err != nil || n != 2 {
		t.Fatalf("config.shards through the router: %d %v", n, err)
	}
	// A shard's replication is not the router's client's to drive.
	err = cl.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "replSetGetStatus", Value: 1}}).Err()
	if !errors.As(err, &ce) || ce.Code != 59 {
		t.Fatalf("replSetGetStatus through the router: %v, want CommandNotFound", err)
	}
}

// testTransactions: a transaction's statements go to its database's
// shard, which answers as it would directly (relaydb's data nodes do not
// run multi-document transactions yet, so today that answer is
// NotImplemented either way); a statement for a second shard is refused
// by the router.
func testTransactions(t *testing.T, tp *topo, cl *mongo.Client) {
	lsid := bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: []byte("txn-test-lsid-01")}}}
	stmt := func(coll string, n int64, start bool) bson.D {
		d := bson.D{{Key: "insert", Value: coll}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: n}}}},
			{Key: "lsid", Value: lsid}, {Key: "txnNumber", Value: n}, {Key: "autocommit", Value: false}}
		if start {
			d = append(d, bson.E{Key: "startTransaction", Value: true})
		}
		return d
	}
	code := func(err error) int32 {
		var ce mongo.CommandError
		if errors.As(err, &ce) {
			return ce.Code
		}
		return 0
	}
	viaRouter := cl.Database("dba").RunCommand(ctxT(t), stmt("txn", 1, true)).Err()
	direct := tp.shardClient(t, "sh0").Database("dba").RunCommand(ctxT(t), stmt("txn", 2, true)).Err()
	if code(viaRouter) != code(direct) {
		t.Fatalf("first statement: router %v, shard directly %v", viaRouter, direct)
	}
	err := cl.Database("dbb").RunCommand(ctxT(t), stmt("txn", 1, false)).Err()
	if code(err) != 263 {
		t.Fatalf("a transaction's statement for a second shard: %v, want OperationNotSupportedInTransaction", err)
	}
	abort := bson.D{{Key: "abortTransaction", Value: 1}, {Key: "lsid", Value: lsid}, {Key: "txnNumber", Value: int64(1)}, {Key: "autocommit", Value: false}}
	_ = cl.Database("admin").RunCommand(ctxT(t), abort).Err()
	// The transaction is forgotten: the same statement is no longer refused.
	err = cl.Database("dbb").RunCommand(ctxT(t), stmt("txn", 1, false)).Err()
	if code(err) == 263 {
		t.Fatalf("after abortTransaction the router still pins the transaction: %v", err)
	}
}

// testAdmin: enableSharding places a database (on a named shard when
// asked), dropDatabase forgets the placement, flushRouterConfig answers.
func testAdmin(t *testing.T, cl *mongo.Client) {
	admin := cl.Database("admin")
	primaryOf := func(db string) string {
		var e struct {
			Primary string `bson:"primary"`
		}
		err := cl.Database("config").Collection("databases").FindOne(ctxT(t), bson.D{{Key: "_id", Value: db}}).Decode(&e)
		if errors.Is(err, mongo.ErrNoDocuments) {
			return ""
		}
		must(t, err, "config.databases %s", db)
		return e.Primary
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "enableSharding", Value: "dbc"}, {Key: "primaryShard", Value: "sh1"}}).Err(), "enableSharding dbc")
	if p := primaryOf("dbc"); p != "sh1" {
		t.Fatalf("dbc primary = %q, want sh1", p)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "enableSharding", Value: "dbc"}}).Err(), "enableSharding dbc again")
	_, err := cl.Database("dbc").Collection("c").InsertOne(ctxT(t), bson.D{{Key: "x", Value: 1}})
	must(t, err, "insert dbc")
	must(t, cl.Database("dbc").Drop(ctxT(t)), "dropDatabase dbc")
	if p := primaryOf("dbc"); p != "" {
		t.Fatalf("dbc still placed on %q after dropDatabase", p)
	}
	var res bson.M
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "flushRouterConfig", Value: 1}}).Decode(&res), "flushRouterConfig")
	err = admin.RunCommand(ctxT(t), bson.D{{Key: "enableSharding", Value: "config"}}).Err()
	if err == nil {
		t.Fatal("enableSharding config accepted")
	}
}

// testShardRestart: after a shard's primary restarts (its pooled
// connections die), reads through the router find it again.
func testShardRestart(t *testing.T, tp *topo, cl *mongo.Client) {
	c := tp.shards["sh1"]
	ctx, cancel := context.WithTimeout(context.Background(), upTimeout)
	defer cancel()
	_, err := c.Restart(ctx, "m0")
	must(t, err, "restart sh1")
	_, err = c.WaitPrimary(ctx)
	must(t, err, "sh1 primary after restart")
	n, err := cl.Database("dbb").Collection("things").CountDocuments(ctxT(t), bson.D{})
	if err != nil || n != 2 {
		t.Fatalf("count through the router after the shard restarted: %d %v", n, err)
	}
	_, err = cl.Database("dbb").Collection("things").InsertOne(ctxT(t), bson.D{{Key: "after", Value: "restart"}})
	must(t, err, "insert after restart")
}

// testTwoRouters: two routers creating the same databases at once agree
// on each one's primary shard (one config.databases document wins), so
// every write lands on one shard.
func testTwoRouters(t *testing.T, tp *topo, cl *mongo.Client) {
	r2 := harness.StartRouter(t, "cfg/"+tp.cfg.Members()[0].Host)
	cl2, err := mongo.Connect(options.Client().ApplyURI(r2.URI()))
	must(t, err, "connect to the second router")
	defer cl2.Disconnect(context.Background())
	const dbs, writers = 6, 4
	errs := make(chan error, 2*writers)
	for _, c := range []*mongo.Client{cl, cl2} {
		for w := 0; w < writers; w++ {
			go func() {
				for d := 0; d < dbs; d++ {
					name := "race" + strconv.Itoa(d)
					if _, err := c.Database(name).Collection("c").InsertOne(context.Background(), bson.D{{Key: "w", Value: w}}); err != nil {
						errs <- err
						return
					}
				}
				errs <- nil
			}()
		}
	}
	for i := 0; i < 2*writers; i++ {
		must(t, <-errs, "concurrent insert")
	}
	for d := 0; d < dbs; d++ {
		name := "race" + strconv.Itoa(d)
		total := int64(0)
		for shard := range tp.shards {
			n, err := tp.shardClient(t, shard).Database(name).Collection("c").CountDocuments(ctxT(t), bson.D{})
			must(t, err, "count %s on %s", name, shard)
			if n != 0 && n != 2*writers {
				t.Errorf("%s: %d of %d documents on %s: the routers disagreed on its primary", name, n, 2*writers, shard)
			}
			total += n
		}
		if total != 2*writers {
			t.Errorf("%s: %d documents over the shards, want %d", name, total, 2*writers)
		}
	}
}

// testSecondaryReads: a read with $readPreference secondary goes to a
// shard secondary, its cursor's getMores follow it there; a set without
// a secondary fails mode secondary (FailedToSatisfyReadPreference) and
// serves secondaryPreferred on its primary.
func testSecondaryReads(t *testing.T, tp *topo, cl *mongo.Client) {
	sec := tp.shards["sh1"].Members()[1]
	secClient, err := tp.shards["sh1"].Client(sec)
	must(t, err, "client to the sh1 secondary")
	queries := func() int64 {
		var ss struct {
			Opcounters struct {
				Query   int64 `bson:"query"`
				GetMore int64 `bson:"getmore"`
			} `bson:"opcounters"`
		}
		must(t, secClient.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "serverStatus", Value: 1}}).Decode(&ss), "serverStatus")
		return ss.Opcounters.Query + ss.Opcounters.GetMore
	}
	// Write to dbb (on sh1) so that the secondary has it: w:2.
	coll := cl.Database("dbb").Collection("sec", options.Collection().SetWriteConcern(&writeconcern.WriteConcern{W: 2}))
	docs := make([]any, 7)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}}
	}
	_, err = coll.InsertMany(ctxT(t), docs)
	must(t, err, "insert w:2")

	before := queries()
	secColl := cl.Database("dbb", options.Database().SetReadPreference(readpref.Secondary())).Collection("sec")
	cur, err := secColl.Find(ctxT(t), bson.D{}, options.Find().SetBatchSize(2))
	must(t, err, "find on a secondary")
	var got []bson.M
	must(t, cur.All(ctxT(t), &got), "read on a secondary")
	if len(got) != 7 {
		t.Fatalf("read %d documents on the secondary, want 7", len(got))
	}
	if n := queries() - before; n < 4 { // find + 3 getMores
		t.Fatalf("the secondary served %d query/getMore operations, want at least 4", n)
	}
	// sh0 has no secondary.
	err = cl.Database("dba", options.Database().SetReadPreference(readpref.Secondary())).Collection("things").FindOne(ctxT(t), bson.D{}).Err()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 133 {
		t.Fatalf("mode secondary on a set without one: %v, want FailedToSatisfyReadPreference", err)
	}
	n, err := cl.Database("dba", options.Database().SetReadPreference(readpref.SecondaryPreferred())).Collection("things").CountDocuments(ctxT(t), bson.D{})
	if err != nil || n != 2 {
		t.Fatalf("secondaryPreferred on a set without a secondary: %d %v", n, err)
	}
}

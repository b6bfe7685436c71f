package integration

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestPymongoSuiteStandaloneBugs (issue #14 item 10): the single-node
// bugs pymongo's own test suite found, through the Go driver.
func TestPymongoSuiteStandaloneBugs(t *testing.T) {
	s, c := startServer(t)
	db := c.Database("bugs")
	t.Run("dropDupsIgnored", func(t *testing.T) {
		// pymongo's test_index_dont_drop_dups: dropDups is accepted and
		// ignored; duplicates still fail a unique build.
		coll := freshColl(t, c, "bugs")
		if _, err := coll.InsertMany(tctx(t, opTimeout), []any{bson.D{{Key: "i", Value: 1}}, bson.D{{Key: "i", Value: 1}}}); err != nil {
			t.Fatal(err)
		}
		idx := func(dropDups bool) error {
			return db.RunCommand(tctx(t, opTimeout), bson.D{{Key: "createIndexes", Value: coll.Name()}, {Key: "indexes", Value: bson.A{
				bson.D{{Key: "key", Value: bson.D{{Key: "i", Value: 1}}}, {Key: "name", Value: "i_1"}, {Key: "unique", Value: true}, {Key: "dropDups", Value: dropDups}},
			}}}).Err()
		}
		wantCode(t, idx(false), 11000, "unique index over duplicates with dropDups: false")
		if _, err := coll.DeleteOne(tctx(t, opTimeout), bson.D{{Key: "i", Value: 1}}); err != nil {
			t.Fatal(err)
		}
		if err := idx(true); err != nil {
			t.Fatalf("createIndexes with dropDups: true: %v", err)
		}
	})
	t.Run("changeStreamOnStandalone", func(t *testing.T) {
		_, err := db.Collection("cs").Watch(tctx(t, opTimeout), mongo.Pipeline{})
		wantCode(t, err, 40573, "$changeStream on a standalone")
	})
	t.Run("snapshotReadConcernOnListCollections", func(t *testing.T) {
		err := db.RunCommand(tctx(t, opTimeout), bson.D{{Key: "listCollections", Value: 1},
			{Key: "readConcern", Value: bson.D{{Key: "level", Value: "snapshot"}}}}).Err()
		wantCode(t, err, 72, "listCollections with readConcern snapshot")
	})
	t.Run("stableAPIStrict", func(t *testing.T) {
		api := options.ServerAPI(options.ServerAPIVersion1).SetStrict(true)
		sc, err := mongo.Connect(options.Client().ApplyURI(s.URI()).SetServerAPIOptions(api))
		if err != nil {
			t.Fatal(err)
		}
		defer sc.Disconnect(tctx(t, opTimeout))
		if err := sc.Database("bugs").RunCommand(tctx(t, opTimeout), bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
			t.Fatalf("ping under apiStrict: %v", err)
		}
		err = sc.Database("admin").RunCommand(tctx(t, opTimeout), bson.D{{Key: "buildInfo", Value: 1}}).Err()
		wantCode(t, err, 323, "buildInfo under apiStrict")
		err = db.RunCommand(tctx(t, opTimeout), bson.D{{Key: "ping", Value: 1}, {Key: "apiVersion", Value: "2"}}).Err()
		wantCode(t, err, 322, "apiVersion 2")
	})
	t.Run("failCommandAppNameOnFirstHello", func(t *testing.T) {
		// The fail point names the application; only the new client's
		// handshakes carry it. Before the fix the first hello of a
		// connection never matched (the name was stored after the check).
		fp := bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: bson.D{{Key: "times", Value: 1}}},
			{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"hello", "isMaster"}}, {Key: "appName", Value: "bugsFirstHello"},
				{Key: "blockConnection", Value: true}, {Key: "blockTimeMS", Value: 1500}}}}
		if err := c.Database("admin").RunCommand(tctx(t, opTimeout), fp).Err(); err != nil {
			t.Fatal(err)
		}
		defer c.Database("admin").RunCommand(tctx(t, opTimeout), bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "off"}})
		start := time.Now()
		ac, err := mongo.Connect(options.Client().ApplyURI(s.URI()).SetAppName("bugsFirstHello"))
		if err != nil {
			t.Fatal(err)
		}
		defer ac.Disconnect(tctx(t, opTimeout))
		if err := ac.Database("admin").RunCommand(tctx(t, opTimeout), bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
			t.Fatalf("ping: %v", err)
		}
		if took := time.Since(start); took < 1400*time.Millisecond {
			t.Fatalf("first ping took %v: the fail point did not block the first hello", took)
		}
	})
}

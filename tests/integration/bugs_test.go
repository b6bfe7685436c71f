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
	t.Run("findMinMaxReturnKey", func(t *testing.T) {
		// pymongo's test_min_query/test_max/test_return_key:
		// find().max({j: 3}).hint({j: 1}) returned all 10 documents.
		coll := freshColl(t, c, "bugs")
		var docs []any
		for j := range 10 {
			docs = append(docs, bson.D{{Key: "_id", Value: j}, {Key: "j", Value: j}, {Key: "k", Value: 9 - j}})
		}
		if _, err := coll.InsertMany(tctx(t, opTimeout), docs); err != nil {
			t.Fatal(err)
		}
		if _, err := coll.Indexes().CreateOne(tctx(t, opTimeout), mongo.IndexModel{Keys: bson.D{{Key: "j", Value: 1}}}); err != nil {
			t.Fatal(err)
		}
		find := func(extra ...bson.E) ([]bson.D, error) {
			cmd := append(bson.D{{Key: "find", Value: coll.Name()}}, extra...)
			var r struct {
				Cursor struct {
					FirstBatch []bson.D `bson:"firstBatch"`
				} `bson:"cursor"`
			}
			err := db.RunCommand(tctx(t, opTimeout), cmd).Decode(&r)
			return r.Cursor.FirstBatch, err
		}
		hint := bson.E{Key: "hint", Value: bson.D{{Key: "j", Value: 1}}}
		j := func(n int) bson.D { return bson.D{{Key: "j", Value: n}} }
		for _, tc := range []struct {
			extra []bson.E
			want  int
		}{
			{[]bson.E{{Key: "max", Value: j(3)}, hint}, 3},
			{[]bson.E{{Key: "min", Value: j(3)}, hint}, 7},
			{[]bson.E{{Key: "min", Value: j(3)}, {Key: "max", Value: j(6)}, hint}, 3},
		} {
			got, err := find(tc.extra...)
			if err != nil || len(got) != tc.want {
				t.Errorf("find %v: %d documents, %v; want %d", tc.extra, len(got), err, tc.want)
			}
		}
		_, err := find(bson.E{Key: "max", Value: j(3)})
		wantCode(t, err, 51173, "max without hint")
		_, err = find(bson.E{Key: "max", Value: bson.D{{Key: "k", Value: 3}}}, hint)
		wantCode(t, err, 51174, "max on another field than the hinted index")
		_, err = find(bson.E{Key: "min", Value: j(6)}, bson.E{Key: "max", Value: j(3)}, hint)
		wantCode(t, err, 51175, "min after max")
		got, err := find(bson.E{Key: "returnKey", Value: true}, hint, bson.E{Key: "filter", Value: bson.D{{Key: "j", Value: bson.D{{Key: "$lt", Value: 2}}}}})
		if err != nil || len(got) != 2 || asJSON(got[0]) != `{"j":0}` || asJSON(got[1]) != `{"j":1}` {
			t.Errorf("returnKey with the j_1 index: %v, %v; want [{j: 0}, {j: 1}]", got, err)
		}
		got, err = find(bson.E{Key: "returnKey", Value: true}, bson.E{Key: "filter", Value: bson.D{{Key: "k", Value: 0}}})
		if err != nil || len(got) != 1 || len(got[0]) != 0 {
			t.Errorf("returnKey of a collection scan: %v, %v; want [{}]", got, err)
		}
	})
	t.Run("validate", func(t *testing.T) {
		coll := freshColl(t, c, "bugs")
		if _, err := coll.InsertMany(tctx(t, opTimeout), []any{bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: bson.A{2, 3}}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := coll.Indexes().CreateOne(tctx(t, opTimeout), mongo.IndexModel{Keys: bson.D{{Key: "a", Value: 1}}}); err != nil {
			t.Fatal(err)
		}
		var r struct {
			Valid        bool             `bson:"valid"`
			NRecords     int64            `bson:"nrecords"`
			NIndexes     int32            `bson:"nIndexes"`
			KeysPerIndex map[string]int64 `bson:"keysPerIndex"`
			Errors       bson.A           `bson:"errors"`
			Warnings     bson.A           `bson:"warnings"`
		}
		if err := db.RunCommand(tctx(t, opTimeout), bson.D{{Key: "validate", Value: coll.Name()}, {Key: "full", Value: true}}).Decode(&r); err != nil {
			t.Fatalf("validate: %v", err)
		}
		if !r.Valid || r.NRecords != 2 || r.NIndexes != 2 || r.KeysPerIndex["_id_"] != 2 || r.KeysPerIndex["a_1"] != 3 ||
			r.Errors == nil || len(r.Errors) != 0 || r.Warnings == nil {
			t.Fatalf("validate = %+v", r)
		}
		err := db.RunCommand(tctx(t, opTimeout), bson.D{{Key: "validate", Value: "nope"}}).Err()
		wantCode(t, err, 26, "validate of a missing collection")
	})
	t.Run("profile", func(t *testing.T) {
		var r struct {
			Was        int32   `bson:"was"`
			SlowMS     int32   `bson:"slowms"`
			SampleRate float64 `bson:"sampleRate"`
		}
		if err := db.RunCommand(tctx(t, opTimeout), bson.D{{Key: "profile", Value: 0}, {Key: "slowms", Value: 250}}).Decode(&r); err != nil {
			t.Fatalf("profile 0: %v", err)
		}
		if r.Was != 0 || r.SlowMS != 100 || r.SampleRate != 1 {
			t.Fatalf("profile 0 answered %+v, want was 0, slowms 100, sampleRate 1", r)
		}
		if err := db.RunCommand(tctx(t, opTimeout), bson.D{{Key: "profile", Value: -1}}).Decode(&r); err != nil || r.SlowMS != 250 {
			t.Fatalf("profile -1 after slowms 250: %+v, %v", r, err)
		}
		db.RunCommand(tctx(t, opTimeout), bson.D{{Key: "profile", Value: 0}, {Key: "slowms", Value: 100}})
		wantCode(t, db.RunCommand(tctx(t, opTimeout), bson.D{{Key: "profile", Value: 3}}).Err(), 2, "profile 3")
		wantCode(t, db.RunCommand(tctx(t, opTimeout), bson.D{{Key: "profile", Value: 0}, {Key: "sampleRate", Value: 2}}).Err(), 2, "sampleRate 2")
	})
	t.Run("explainExecutionStats", func(t *testing.T) {
		coll := freshColl(t, c, "bugs")
		if _, err := coll.InsertMany(tctx(t, opTimeout), []any{bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 2}}}); err != nil {
			t.Fatal(err)
		}
		var r struct {
			ExecutionStats struct {
				NReturned         *int64   `bson:"nReturned"`
				ExecutionTimeMS   *int64   `bson:"executionTimeMillis"`
				TotalKeysExamined *int64   `bson:"totalKeysExamined"`
				TotalDocsExamined *int64   `bson:"totalDocsExamined"`
				ExecutionStages   bson.Raw `bson:"executionStages"`
			} `bson:"executionStats"`
		}
		err := db.RunCommand(tctx(t, opTimeout), bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: coll.Name()},
			{Key: "filter", Value: bson.D{{Key: "a", Value: 2}}}}}, {Key: "verbosity", Value: "executionStats"}}).Decode(&r)
		s := r.ExecutionStats
		if err != nil || s.NReturned == nil || *s.NReturned != 1 || s.ExecutionTimeMS == nil || s.TotalKeysExamined == nil ||
			s.TotalDocsExamined == nil || *s.TotalDocsExamined != 2 || s.ExecutionStages == nil {
			t.Fatalf("explain executionStats: %+v, %v", s, err)
		}
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

package integration

import (
	"context"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/relaydb/relaydb/tests/harness"
)

// ddlCase is one acknowledged DDL command checked after kill -9: setup runs
// first (made durable by a j:true insert), then cmd with {w:1, j:true}, then
// the server is killed at once and check runs after the restart.
type ddlCase struct {
	name  string
	setup func(ctx context.Context, db *mongo.Database) error
	cmd   bson.D
	check func(ctx context.Context, t *testing.T, db *mongo.Database)
	admin bool // cmd runs on the admin database
}

// TestDDLJournaledSurvivesKill9 is issue #9's first defect: a DDL command
// acknowledged with j:true must survive kill -9 sent right after the
// reply. The background flush interval is the longest allowed (500 ms), so
// without the wait each case loses its effect nearly always.
func TestDDLJournaledSurvivesKill9(t *testing.T) {
	s := harness.Start(t, harness.WithArgs("--journalCommitInterval", "500"))
	for _, tc := range ddlCases() {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tctx(t, 60*time.Second)
			c := s.Client(t)
			db := c.Database("ddl_" + sanitize(tc.name))
			if tc.setup != nil {
				if err := tc.setup(ctx, db); err != nil {
					t.Fatalf("setup: %v", err)
				}
			}
			syncAll(ctx, t, db)
			cmd := append(slices.Clone(tc.cmd), bson.E{Key: "writeConcern", Value: bson.D{{Key: "w", Value: 1}, {Key: "j", Value: true}}})
			on := db
			if tc.admin {
				on = c.Database("admin")
			}
			var reply bson.M
			if err := on.RunCommand(ctx, cmd).Decode(&reply); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if _, bad := reply["writeConcernError"]; bad {
				t.Fatalf("%s: writeConcernError %v", tc.name, reply)
			}
			s.Kill9()
			s.Restart(t)
			tc.check(ctx, t, s.Client(t).Database(db.Name()))
		})
	}
}

// syncAll makes everything written so far durable: a j:true insert syncs
// the whole WAL up to its own batch.
func syncAll(ctx context.Context, t *testing.T, db *mongo.Database) {
	t.Helper()
	cmd := bson.D{{Key: "insert", Value: "_sync"}, {Key: "documents", Value: bson.A{bson.D{}}},
		{Key: "writeConcern", Value: bson.D{{Key: "j", Value: true}}}}
	if err := db.RunCommand(ctx, cmd).Err(); err != nil {
		t.Fatalf("sync insert: %v", err)
	}
}

func ddlCases() []ddlCase {
	return []ddlCase{
		{name: "create", cmd: bson.D{{Key: "create", Value: "c"}}, check: wantColls("c")},
		{name: "drop", setup: seedColl("c", 100), cmd: bson.D{{Key: "drop", Value: "c"}}, check: wantNoColl("c")},
		{name: "dropDatabase", setup: seedColl("c", 100), cmd: bson.D{{Key: "dropDatabase", Value: 1}}, check: wantNoColl("c")},
		{name: "createIndexes", setup: seedColl("c", 100), cmd: bson.D{{Key: "createIndexes", Value: "c"},
			{Key: "indexes", Value: bson.A{bson.D{{Key: "key", Value: bson.D{{Key: "x", Value: 1}}}, {Key: "name", Value: "x_1"}}}}},
			check: wantIndexes("c", "_id_", "x_1")},
		{name: "dropIndexes", setup: seedIndexed("c"), cmd: bson.D{{Key: "dropIndexes", Value: "c"}, {Key: "index", Value: "x_1"}},
			check: wantIndexes("c", "_id_")},
		{name: "renameCollection", setup: seedColl("a", 100), cmd: bson.D{{Key: "renameCollection", Value: "ddl_renameCollection.a"},
			{Key: "to", Value: "ddl_renameCollection.b"}}, check: wantColls("b"), admin: true},
		{name: "out", setup: seedColl("src", 100), cmd: aggCmd("src", bson.D{{Key: "$out", Value: "dst"}}), check: wantCount("dst", 100)},
		{name: "merge", setup: seedColl("src", 100), cmd: aggCmd("src", bson.D{{Key: "$merge", Value: bson.D{{Key: "into", Value: "dst"}}}}),
			check: wantCount("dst", 100)},
	}
}

func aggCmd(coll string, last bson.D) bson.D {
	return bson.D{{Key: "aggregate", Value: coll}, {Key: "pipeline", Value: bson.A{last}}, {Key: "cursor", Value: bson.D{}}}
}

func seedColl(name string, n int) func(context.Context, *mongo.Database) error {
	return func(ctx context.Context, db *mongo.Database) error {
		docs := make([]any, n)
		for i := range docs {
			docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "x", Value: i}}
		}
		_, err := db.Collection(name).InsertMany(ctx, docs)
		return err
	}
}

func seedIndexed(name string) func(context.Context, *mongo.Database) error {
	return func(ctx context.Context, db *mongo.Database) error {
		if err := seedColl(name, 100)(ctx, db); err != nil {
			return err
		}
		_, err := db.Collection(name).Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "x", Value: 1}}})
		return err
	}
}

func collNames(ctx context.Context, t *testing.T, db *mongo.Database) []string {
	t.Helper()
	names, err := db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		t.Fatalf("listCollections: %v", err)
	}
	return names
}

func wantColls(names ...string) func(context.Context, *testing.T, *mongo.Database) {
	return func(ctx context.Context, t *testing.T, db *mongo.Database) {
		have := collNames(ctx, t, db)
		for _, n := range names {
			if !slices.Contains(have, n) {
				t.Errorf("collection %s missing after kill -9; have %v", n, have)
			}
		}
	}
}

func wantNoColl(name string) func(context.Context, *testing.T, *mongo.Database) {
	return func(ctx context.Context, t *testing.T, db *mongo.Database) {
		if have := collNames(ctx, t, db); slices.Contains(have, name) {
			t.Errorf("dropped collection %s is back after kill -9", name)
		}
	}
}

func wantIndexes(coll string, want ...string) func(context.Context, *testing.T, *mongo.Database) {
	return func(ctx context.Context, t *testing.T, db *mongo.Database) {
		specs, err := db.Collection(coll).Indexes().ListSpecifications(ctx)
		if err != nil {
			t.Fatalf("listIndexes: %v", err)
		}
		var have []string
		for _, s := range specs {
			have = append(have, s.Name)
		}
		slices.Sort(have)
		if !slices.Equal(have, want) {
			t.Errorf("indexes after kill -9 = %v, want %v", have, want)
		}
	}
}

func wantCount(coll string, n int64) func(context.Context, *testing.T, *mongo.Database) {
	return func(ctx context.Context, t *testing.T, db *mongo.Database) {
		got, err := db.Collection(coll).CountDocuments(ctx, bson.D{})
		if err != nil {
			t.Fatalf("count: %v", err)
		}
		if got != n {
			t.Errorf("%s has %d documents after kill -9, want %d", coll, got, n)
		}
	}
}

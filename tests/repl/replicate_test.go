package repl

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/cluster"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

const replicateDocs = 1000

// TestReplicate inserts 1000 documents with w:"majority" through the
// replicaSet URI and finds every document and index on each secondary.
func TestReplicate(t *testing.T) {
	c := sharedSet(t)
	cl := connectSet(t, c)
	coll := cl.Database("repl_a").Collection("docs",
		options.Collection().SetWriteConcern(writeconcern.Majority()))
	ctx, cancel := ctxT(30 * time.Second)
	defer cancel()
	idx := []mongo.IndexModel{
		{Keys: bson.D{{Key: "x", Value: 1}}, Options: options.Index().SetName("x_1")},
		{Keys: bson.D{{Key: "name", Value: 1}}, Options: options.Index().SetName("name_unique").SetUnique(true)},
	}
	if _, err := coll.Indexes().CreateMany(ctx, idx); err != nil {
		t.Fatalf("createIndexes: %v", err)
	}
	docs := make([]any, replicateDocs)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "x", Value: int64(i * 7)}, {Key: "name", Value: fmt.Sprintf("n%04d", i)}}
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatalf("insertMany w:majority: %v", err)
	}
	p := primary(t, c, 10*time.Second)
	for _, m := range secondaries(c, p) {
		checkReplica(t, c, m, replicateDocs)
	}
}

// checkReplica waits (bounded) until member m holds all n documents of
// repl_a.docs with the right contents and both indexes, read directly with
// secondaryPreferred.
func checkReplica(t *testing.T, c *cluster.Cluster, m *cluster.Member, n int) {
	t.Helper()
	coll := direct(t, c, m).Database("repl_a").Collection("docs",
		options.Collection().SetReadPreference(readpref.SecondaryPreferred()))
	eventually(t, 10*time.Second, m.Name+" has every document", func() error {
		ctx, cancel := ctxT(5 * time.Second)
		defer cancel()
		return checkDocs(ctx, coll, n)
	})
	eventually(t, 5*time.Second, m.Name+" has every index", func() error {
		ctx, cancel := ctxT(5 * time.Second)
		defer cancel()
		return checkIndexes(ctx, coll)
	})
}

func checkDocs(ctx context.Context, coll *mongo.Collection, n int) error {
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return fmt.Errorf("find: %w", err)
	}
	var got []struct {
		ID   int32  `bson:"_id"`
		X    int64  `bson:"x"`
		Name string `bson:"name"`
	}
	if err := cur.All(ctx, &got); err != nil {
		return fmt.Errorf("read cursor: %w", err)
	}
	if len(got) != n {
		return fmt.Errorf("%d documents, want %d", len(got), n)
	}
	for i, d := range got {
		if d.ID != int32(i) || d.X != int64(i*7) || d.Name != fmt.Sprintf("n%04d", i) {
			return fmt.Errorf("document %d = %+v, want {_id:%d x:%d name:n%04d}", i, d, i, i*7, i)
		}
	}
	return nil
}

func checkIndexes(ctx context.Context, coll *mongo.Collection) error {
	specs, err := coll.Indexes().ListSpecifications(ctx)
	if err != nil {
		return fmt.Errorf("listIndexes: %w", err)
	}
	want := map[string]bool{"_id_": false, "x_1": false, "name_unique": true}
	seen := map[string]bool{}
	for _, s := range specs {
		unique := s.Unique != nil && *s.Unique
		if u, ok := want[s.Name]; ok && u == unique {
			seen[s.Name] = true
		}
	}
	if len(seen) != len(want) {
		return fmt.Errorf("indexes %v, want _id_, x_1 and unique name_unique", specNames(specs))
	}
	return nil
}

func specNames(specs []mongo.IndexSpecification) []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

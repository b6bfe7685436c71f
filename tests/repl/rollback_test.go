package repl

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/internal/repl/rollback"
)

// TestRollbackOfIsolatedPrimary: a primary cut off from both secondaries
// takes w:1 writes, dies, and rejoins after the others elected a primary
// and wrote: it rolls the w:1 writes back (saving them under its dbpath)
// and becomes SECONDARY with the set's data.
func TestRollbackOfIsolatedPrimary(t *testing.T) {
	c := upSet(t, cluster.Spec{Data: 3})
	old := primary(t, c, 20*time.Second)
	ctx, cancel := ctxT(90 * time.Second)
	defer cancel()
	cl := direct(t, c, old)
	coll := cl.Database("rb").Collection("c", options.Collection().SetWriteConcern(writeconcern.Majority()))
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "common"}}); err != nil {
		t.Fatalf("majority insert: %v", err)
	}
	secs := secondaries(c, old)
	for _, m := range secs {
		if _, err := c.Kill(ctx, m.Name); err != nil {
			t.Fatalf("kill %s: %v", m.Name, err)
		}
	}
	// j:true: the old primary must hold these writes when it is killed;
	// a w:1 j:false write may be lost by kill -9 and would then have
	// nothing to roll back.
	journaled := true
	w1 := cl.Database("rb").Collection("c", options.Collection().SetWriteConcern(&writeconcern.WriteConcern{W: 1, Journal: &journaled}))
	for i := 0; i < 3; i++ {
		if _, err := w1.InsertOne(ctx, bson.D{{Key: "_id", Value: fmt.Sprintf("lost%d", i)}}); err != nil {
			t.Fatalf("w:1 insert on the isolated primary: %v", err)
		}
	}
	if _, err := c.Kill(ctx, old.Name); err != nil {
		t.Fatalf("kill %s: %v", old.Name, err)
	}
	for _, m := range secs {
		if _, err := c.Restart(ctx, m.Name); err != nil {
			t.Fatalf("restart %s: %v", m.Name, err)
		}
	}
	newP := waitNewPrimary(t, c, old, 30*time.Second)
	ncoll := direct(t, c, newP).Database("rb").Collection("c")
	if _, err := ncoll.InsertOne(ctx, bson.D{{Key: "_id", Value: "new"}}); err != nil {
		t.Fatalf("insert on the new primary: %v", err)
	}
	rejoin(t, c, old, nil)
	eventually(t, 20*time.Second, "the old primary to hold the set's data", func() error {
		return sameIDs(direct(t, c, old), []string{"common", "new"})
	})
	checkRollbackFile(t, old, []string{"lost0", "lost1", "lost2"})
}

// sameIDs checks that rb.c on the member cl reaches holds exactly want.
func sameIDs(cl *mongo.Client, want []string) error {
	ctx, cancel := ctxT(2 * time.Second)
	defer cancel()
	coll := cl.Database("rb").Collection("c", options.Collection().SetReadPreference(readpref.PrimaryPreferred()))
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return err
	}
	var docs []bson.D
	if err := cur.All(ctx, &docs); err != nil {
		return err
	}
	var got []string
	for _, d := range docs {
		id, _ := d[0].Value.(string)
		got = append(got, id)
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("rb.c holds %v, want %v", got, want)
	}
	return nil
}

// checkRollbackFile finds the rollback files under m's dbpath and expects
// exactly the want _ids in them.
func checkRollbackFile(t *testing.T, m *cluster.Member, want []string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(m.DBPath, "rollback", "*", "removed.*.bson"))
	got := map[string]bool{}
	for _, f := range files {
		docs, err := rollback.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			id, _ := d[0].Value.(string)
			got[id] = true
		}
	}
	if len(got) != len(want) {
		t.Errorf("rollback files %v hold %v, want %v", files, got, want)
	}
	for _, id := range want {
		if !got[id] {
			t.Errorf("rollback files %v lack _id %s (hold %v)", files, id, got)
		}
	}
}

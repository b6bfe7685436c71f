package crash

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/relaydb/relaydb/tests/harness"
)

// journalWriters is how many j:true writers share the WAL syncs (group
// commit) when the server is killed.
const journalWriters = 32

// TestCrashConcurrentJournaledInserts kills -9 a server while many
// clients insert with {w: 1, j: true}, so that acknowledgements come
// from WAL syncs shared by many writers: every acknowledged insert is
// there after the restart, and inserting the greatest acknowledged _id
// again is a duplicate key error (the unique check after recovery). Half
// the writers insert increasing _ids, half scattered ones.
func TestCrashConcurrentJournaledInserts(t *testing.T) {
	s := harness.Start(t)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 15))
	for trial := 0; trial < 3; trial++ {
		killAfter := time.Duration(200+rng.IntN(600)) * time.Millisecond
		acked := insertUntilKilled(t, s, trial, killAfter)
		s.Restart(t)
		checkAcked(t, s, trial, acked)
	}
}

// insertUntilKilled runs journalWriters writers and kills the server
// after d; it returns the _ids acknowledged before the kill.
func insertUntilKilled(t *testing.T, s *harness.Server, trial int, d time.Duration) []string {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(s.URI()).SetMaxPoolSize(journalWriters + 4).SetRetryWrites(false))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Disconnect(context.Background()) }()
	coll := c.Database("crash").Collection("journal", options.Collection().SetWriteConcern(writeconcern.Journaled()))
	ctx, cancel := context.WithTimeout(context.Background(), d+30*time.Second)
	defer cancel()
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: fmt.Sprintf("t%d-warmup", trial)}}); err != nil {
		t.Fatalf("trial %d: warm-up insert: %v", trial, err)
	}
	var (
		mu    sync.Mutex
		acked []string
		wg    sync.WaitGroup
	)
	for w := 0; w < journalWriters; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 100000; i++ { // bounded; the kill ends it
				id := fmt.Sprintf("t%d-inc-%08d-%02d", trial, i, w)
				if w%2 == 1 {
					id = fmt.Sprintf("t%d-sc-%016x", trial, rand.Uint64())
				}
				if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "w", Value: w}}); err != nil {
					return // the server is gone (or the deadline passed)
				}
				mu.Lock()
				acked = append(acked, id)
				mu.Unlock()
			}
		}(w)
	}
	waitAcked(&mu, &acked, journalWriters, 20*time.Second) // every connection is up
	time.Sleep(d)
	s.Kill9()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(acked) < journalWriters {
		t.Fatalf("trial %d: only %d inserts acknowledged before the kill", trial, len(acked))
	}
	t.Logf("trial %d: %d inserts acknowledged before the kill after %v", trial, len(acked), d)
	return append([]string(nil), acked...)
}

// waitAcked waits until *acked holds n _ids, at most for limit.
func waitAcked(mu *sync.Mutex, acked *[]string, n int, limit time.Duration) {
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		got := len(*acked)
		mu.Unlock()
		if got >= n {
			return
		}
	}
}

// checkAcked fails t unless every acknowledged _id is stored and the
// greatest one cannot be inserted again.
func checkAcked(t *testing.T, s *harness.Server, trial int, acked []string) {
	t.Helper()
	c := s.Client(t)
	coll := c.Database("crash").Collection("journal")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		ID string `bson:"_id"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	have := make(map[string]bool, len(docs))
	for _, d := range docs {
		have[d.ID] = true
	}
	greatest := ""
	for _, id := range acked {
		if !have[id] {
			t.Fatalf("trial %d: acknowledged j:true insert of _id %q lost by kill -9 (%d of %d stored)", trial, id, len(docs), len(acked))
		}
		greatest = max(greatest, id)
	}
	_, err = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: greatest}})
	var we mongo.WriteException
	if !errors.As(err, &we) || !we.HasErrorCode(11000) {
		t.Fatalf("trial %d: inserting the greatest acknowledged _id %q again: %v, want E11000", trial, greatest, err)
	}
}

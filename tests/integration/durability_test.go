package integration

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relaydb/relaydb/tests/harness"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

const (
	durRounds  = 3 // kill -9 rounds on one dbpath
	durWriters = 8 // concurrent j:true writers
)

// TestKill9Durability kills the server mid-load and requires every
// j:true-acknowledged document back, byte for byte, and a clean
// `relaydb tool verify` after a graceful stop.
func TestKill9Durability(t *testing.T) {
	r := newRand(seed(t))
	s := harness.Start(t)
	c := s.Client(t)
	coll := c.Database("dur").Collection("c")
	createIndex(t, coll, bson.D{{Key: "u", Value: 1}}, options.Index().SetUnique(true))
	createIndex(t, coll, bson.D{{Key: "g", Value: 1}, {Key: "n", Value: -1}}, nil)
	var all []bson.D
	for round := range durRounds {
		delay := time.Duration(150+r.IntN(600)) * time.Millisecond
		acked := loadAndKill(t, s, round, delay)
		t.Logf("round %d: killed after %v with %d acknowledged inserts", round, delay, len(acked))
		if len(acked) == 0 {
			t.Fatalf("round %d: no write was acknowledged before kill -9", round)
		}
		all = append(all, acked...)
		s.Restart(t)
		checkAcked(t, coll, all)
		s.Stop()
		runVerify(t, s.DBPath())
		s.Restart(t)
	}
}

// loadAndKill runs durWriters j:true inserters, kills the server with
// SIGKILL after delay, and returns the acknowledged documents.
func loadAndKill(t *testing.T, s *harness.Server, round int, delay time.Duration) []bson.D {
	cl, err := mongo.Connect(options.Client().ApplyURI(s.URI()).SetMaxPoolSize(durWriters * 2))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cl.Disconnect(context.Background())
	j := true
	wc := &writeconcern.WriteConcern{W: 1, Journal: &j}
	coll := cl.Database("dur").Collection("c", options.Collection().SetWriteConcern(wc))
	ctx, cancel := context.WithTimeout(context.Background(), delay+10*time.Second)
	defer cancel()
	var mu sync.Mutex
	var acked []bson.D
	var wg sync.WaitGroup
	for w := range durWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ctx.Err() == nil; n++ {
				d := durDoc(round, w, n)
				if _, err := coll.InsertOne(ctx, d); err != nil {
					return // the server is gone (or the round is over)
				}
				mu.Lock()
				acked = append(acked, d)
				mu.Unlock()
			}
		}()
	}
	time.Sleep(delay)
	s.Kill9()
	wg.Wait()
	return acked
}

// durDoc is the document writer w inserts as its n-th in round; its content
// is a function of (round, w, n) so it can be checked exactly.
func durDoc(round, w, n int) bson.D {
	id := fmt.Sprintf("r%d-w%d-%06d", round, w, n)
	return bson.D{{Key: "_id", Value: id}, {Key: "u", Value: "u-" + id}, {Key: "g", Value: int32(w)},
		{Key: "n", Value: int64(n)}, {Key: "f", Value: float64(n) / 7},
		{Key: "sub", Value: bson.D{{Key: "round", Value: int32(round)}, {Key: "tags", Value: bson.A{"x", int32(n % 5)}}}},
		{Key: "pad", Value: strings.Repeat(string(rune('a'+w)), 64+n%200)}}
}

// checkAcked requires each acknowledged document, exact, by _id and through
// the unique and compound indexes.
func checkAcked(t *testing.T, coll *mongo.Collection, acked []bson.D) {
	t.Helper()
	ctx := tctx(t, 30*time.Second)
	missing := 0
	for _, want := range acked {
		var got bson.D
		if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: want[0].Value}}).Decode(&got); err != nil || asJSON(got) != asJSON(want) {
			if missing++; missing <= 5 {
				t.Errorf("acknowledged doc %v after kill -9: err %v\n got  %s\n want %s", want[0].Value, err, asJSON(got), asJSON(want))
			}
			continue
		}
		if n, err := coll.CountDocuments(ctx, bson.D{{Key: "u", Value: want[1].Value}}); err != nil || n != 1 {
			if missing++; missing <= 5 {
				t.Errorf("unique index lookup u=%v: %d docs, err %v; want 1", want[1].Value, n, err)
			}
		}
	}
	if missing > 0 {
		t.Fatalf("%d of %d acknowledged documents missing or wrong after kill -9", missing, len(acked))
	}
	// Compound index range scan must see exactly the documents of writer 0.
	n, err := coll.CountDocuments(ctx, bson.D{{Key: "g", Value: int32(0)}, {Key: "n", Value: bson.D{{Key: "$gte", Value: int64(0)}}}})
	want := 0
	for _, d := range acked {
		if d[2].Value == int32(0) {
			want++
		}
	}
	if err != nil || n < int64(want) {
		t.Errorf("compound index count g=0: %d, err %v; want >= %d acknowledged", n, err, want)
	}
}

// runVerify runs `relaydb tool verify --dbpath dir` and requires exit 0.
func runVerify(t *testing.T, dir string) {
	t.Helper()
	bin, err := harness.Binary()
	if err != nil {
		t.Fatalf("binary: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "tool", "verify", "--dbpath", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("relaydb tool verify --dbpath %s: %v\n%s", dir, err, out)
	}
}

package repl

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/internal/cluster"
)

// TestInitialSyncUnderInsertsConverges: a wiped secondary clones and
// replays papply.c while the primary keeps inserting, deleting and
// re-inserting the same _ids (a unique and a multikey index), through its
// initial sync and on into steady state (where inserts skip the
// existing-_id probe: applier.Options.FreshInserts). It ends with exactly
// the primary's documents and validate finds its indexes and counters
// consistent.
func TestInitialSyncUnderInsertsConverges(t *testing.T) {
	c := upSet(t, cluster.Spec{Data: 3, BasePort: 30850})
	p := primary(t, c, 10*time.Second)
	sec := secondaries(c, p)[0]
	coll := direct(t, c, p).Database("papply").Collection("c")
	ctx, cancel := ctxT(3 * time.Minute)
	defer cancel()
	if _, err := coll.Indexes().CreateMany(ctx, []mongo.IndexModel{
		{Keys: bson.D{{Key: "u", Value: 1}}, Options: options.Index().SetUnique(true)},
		{Keys: bson.D{{Key: "tags", Value: 1}}},
	}); err != nil {
		t.Fatal(err)
	}
	doc := func(id, gen int) bson.D {
		return bson.D{{Key: "_id", Value: int32(id)}, {Key: "u", Value: fmt.Sprintf("u%d-%d", id, gen)},
			{Key: "tags", Value: bson.A{int32(gen), int32(id % 7)}}}
	}
	put := func(lo, hi, gen int) {
		var docs []any
		for i := lo; i < hi; i++ {
			docs = append(docs, doc(i, gen))
		}
		if _, err := coll.InsertMany(ctx, docs); err != nil {
			t.Error(err)
		}
	}
	put(0, 3000, 0)
	wipeAndRestart(ctx, t, c, sec)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // churn: delete a range and insert the same _ids again, plus new ones
		defer wg.Done()
		for gen := 1; gen <= 400; gen++ {
			select {
			case <-stop:
				return
			default:
			}
			lo := (gen * 37) % 2900
			if _, err := coll.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: lo}, {Key: "$lt", Value: lo + 50}}}}); err != nil {
				t.Error(err)
				return
			}
			put(lo, lo+50, gen)
			put(3000+gen*10, 3000+gen*10+10, gen)
		}
	}()
	waitSecondary(ctx, t, c, sec)
	time.Sleep(2 * time.Second) // keep churning in steady state
	close(stop)
	wg.Wait()
	waitSameHashes(t, c, p, sec, 90*time.Second)
	var res bson.M
	if err := direct(t, c, sec).Database("papply").RunCommand(ctx, bson.D{{Key: "validate", Value: "c"}}).Decode(&res); err != nil {
		t.Fatalf("validate on %s: %v", sec.Name, err)
	}
	if res["valid"] != true {
		t.Fatalf("validate on %s: %v", sec.Name, res)
	}
}

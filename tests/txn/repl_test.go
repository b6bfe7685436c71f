package txn

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"github.com/relaydb/relaydb/internal/cluster"
)

// commitBatch commits one transaction inserting ids [from, from+n).
func commitBatch(ctx context.Context, cl *mongo.Client, coll *mongo.Collection, from, n int) error {
	sess, err := cl.StartSession()
	if err != nil {
		return err
	}
	defer sess.EndSession(ctx)
	_, err = sess.WithTransaction(ctx, func(sc context.Context) (any, error) {
		for i := from; i < from+n; i++ {
			if _, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: int32(i)}}); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	return err
}

// TestSecondariesApplyAtomically: a reader on a secondary never sees part
// of a transaction: the count is always a multiple of its size.
func TestSecondariesApplyAtomically(t *testing.T) {
	c := upSet(t)
	cl := connect(t, c)
	ctx, cancel := ctxT(60 * time.Second)
	defer cancel()
	coll := cl.Database("txn").Collection("atomic")
	if err := cl.Database("txn").CreateCollection(ctx, "atomic"); err != nil {
		t.Fatal(err)
	}
	const size, batches = 7, 40
	sec := cl.Database("txn", options.Database().SetReadPreference(readpref.Secondary())).Collection("atomic")
	var stop atomic.Bool
	var reads, partial atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() && ctx.Err() == nil {
			n, err := sec.CountDocuments(ctx, bson.D{})
			if err != nil {
				continue
			}
			reads.Add(1)
			if n%size != 0 {
				partial.Add(1)
			}
		}
	}()
	for b := 0; b < batches; b++ {
		if err := commitBatch(ctx, cl, coll, b*size, size); err != nil {
			stop.Store(true)
			wg.Wait()
			t.Fatalf("transaction %d: %v", b, err)
		}
	}
	time.Sleep(200 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	if partial.Load() > 0 || reads.Load() < 10 {
		t.Fatalf("%d of %d secondary reads saw part of a transaction", partial.Load(), reads.Load())
	}
	for _, m := range c.Members() {
		mc, err := c.Client(m)
		if err != nil {
			t.Fatal(err)
		}
		mcoll := mc.Database("txn").Collection("atomic", options.Collection().SetReadPreference(readpref.Nearest()))
		var n int64
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
			if n, err = mcoll.CountDocuments(ctx, bson.D{}); err == nil && n == size*batches {
				break
			}
		}
		if err != nil || n != size*batches {
			log, _ := os.ReadFile(filepath.Join(c.Spec().Dir, m.Name, "relaydb.log"))
			t.Fatalf("%s holds %d documents (%v), want %d; its log:\n%s", m.Name, n, err, size*batches, tailOf(log, 3000))
		}
	}
}

// TestCommitAfterFailover: a majority-committed transaction's commit,
// retried on the new primary after a step-down, answers ok; after a
// kill -9 of the primary right after the commit, its writes survive.
func TestCommitAfterFailover(t *testing.T) {
	c := upSet(t)
	cl := connect(t, c)
	ctx, cancel := ctxT(90 * time.Second)
	defer cancel()
	db := cl.Database("txn")
	coll := db.Collection("failover")
	if err := db.CreateCollection(ctx, "failover"); err != nil {
		t.Fatal(err)
	}
	sess, _ := cl.StartSession()
	defer sess.EndSession(ctx)
	_ = sess.StartTransaction()
	sc := mongo.NewSessionContext(ctx, sess)
	for i := 1; i <= 3; i++ {
		if _, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: int32(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := sess.CommitTransaction(ctx); err != nil {
		t.Fatal(err)
	}
	old, err := c.WaitPrimary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	oc, _ := c.Client(old)
	_ = oc.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetStepDown", Value: 30}, {Key: "force", Value: true}}).Err()
	newP := waitNewPrimary(t, ctx, c, old)
	if err := sess.CommitTransaction(ctx); err != nil {
		t.Fatalf("commit retried on the new primary %s: %v", newP.Name, err)
	}
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 3 {
		t.Fatalf("after failover: %d documents (%v), want 3", n, err)
	}

	// kill -9 right after a w:majority commit.
	if err := commitBatch(ctx, cl, coll, 10, 5); err != nil {
		t.Fatal(err)
	}
	p, err := c.WaitPrimary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Kill(ctx, p.Name); err != nil {
		t.Fatal(err)
	}
	waitNewPrimary(t, ctx, c, p)
	var n int64
	for time.Now().Before(time.Now().Add(20 * time.Second)) {
		if n, err = coll.CountDocuments(ctx, bson.D{}); err == nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if n != 8 {
		t.Fatalf("after kill -9 of the primary: %d documents (%v), want 8", n, err)
	}
}

// waitNewPrimary waits for a primary other than old.
func waitNewPrimary(t *testing.T, ctx context.Context, c *cluster.Cluster, old *cluster.Member) *cluster.Member {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		p, err := c.Primary(wctx)
		cancel()
		if err == nil && p != nil && p.Name != old.Name {
			return p
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatal(fmt.Errorf("no new primary within 30s"))
	return nil
}

// tailOf is the last n bytes of b.
func tailOf(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

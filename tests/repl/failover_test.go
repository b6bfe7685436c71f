package repl

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/cluster"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// Bounds of the failover test.
const (
	electionBound = 10 * time.Second // kill -9 to a new primary
	recoverBound  = 15 * time.Second // kill -9 to the writer's next success
	rejoinBound   = 20 * time.Second // restart to SECONDARY
)

// writer inserts {_id: seq} with w:"majority" (retryable writes on) until
// stopped, recording acknowledged ids and the unavailability window.
type writer struct {
	coll *mongo.Collection

	mu         sync.Mutex
	acked      []int64   // REQUIRES: mu
	failures   int       // REQUIRES: mu
	errs       []string  // REQUIRES: mu; the first few failures
	dupKeys    []int64   // REQUIRES: mu; ids whose insert failed with E11000
	lastOK     time.Time // REQUIRES: mu
	firstFail  time.Time // REQUIRES: mu; first failure since the last success
	gap        time.Duration
	gapFail    time.Duration // first failed write to first successful write
	okAfterGap bool
	killedAt   time.Time // REQUIRES: mu
}

func (w *writer) run(stop <-chan struct{}) {
	for seq := int64(0); ; seq++ {
		select {
		case <-stop:
			return
		default:
		}
		ctx, cancel := ctxT(5 * time.Second)
		_, err := w.coll.InsertOne(ctx, bson.D{{Key: "_id", Value: seq}})
		cancel()
		w.record(seq, err)
	}
}

// start runs the writer in a goroutine; the returned func stops it and
// waits for it (idempotent).
func (w *writer) start() func() {
	stop, done := make(chan struct{}), make(chan struct{})
	go func() { defer close(done); w.run(stop) }()
	var once sync.Once
	return func() { once.Do(func() { close(stop); <-done }) }
}

func (w *writer) record(seq int64, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	if err != nil {
		w.failures++
		if mongo.IsDuplicateKeyError(err) {
			w.dupKeys = append(w.dupKeys, seq)
		}
		if len(w.errs) < 3 {
			w.errs = append(w.errs, fmt.Sprintf("_id %d at +%v: %v", seq, now.Sub(w.killedAt).Round(time.Millisecond), err))
		}
		if w.firstFail.IsZero() {
			w.firstFail = now
		}
		return
	}
	w.acked = append(w.acked, seq)
	if !w.killedAt.IsZero() && !w.okAfterGap {
		w.okAfterGap = true
		w.gap = now.Sub(w.lastOK)
		if !w.firstFail.IsZero() {
			w.gapFail = now.Sub(w.firstFail)
		}
	}
	w.lastOK, w.firstFail = now, time.Time{}
}

func (w *writer) markKill() {
	w.mu.Lock()
	w.killedAt = time.Now()
	w.mu.Unlock()
}

func (w *writer) recovered() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.okAfterGap {
		return fmt.Errorf("no acknowledged write since the kill (%d failures)", w.failures)
	}
	return nil
}

// TestFailover kills -9 the primary under a continuous w:"majority"
// writer, expects a new primary within electionBound, the driver to resume
// on its own, every acknowledged write on the new primary, and the old
// primary to rejoin as SECONDARY with those writes.
func TestFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("slowest test of the package; skipped under -short")
	}
	c := upSet(t, cluster.Spec{Data: 3})
	cl := connectSet(t, c, options.Client().SetRetryWrites(true))
	w := &writer{coll: cl.Database("repl_b").Collection("w",
		options.Collection().SetWriteConcern(writeconcern.Majority()))}
	stopWriter := w.start()
	defer stopWriter()

	eventually(t, 10*time.Second, "writer has 50 acknowledged writes", func() error {
		if n := w.count(); n < 50 {
			return fmt.Errorf("%d acknowledged", n)
		}
		return nil
	})
	old := primary(t, c, 5*time.Second)
	killed := time.Now()
	if _, err := c.Kill(context.Background(), old.Name); err != nil {
		t.Fatalf("kill -9 %s: %v", old.Name, err)
	}
	w.markKill() // after the process is gone: no later ack can predate the kill
	newP := waitNewPrimary(t, c, old, electionBound)
	t.Logf("new primary %s elected %v after kill -9 of %s", newP.Name, time.Since(killed).Round(time.Millisecond), old.Name)
	eventually(t, recoverBound, "writer resumes through the driver", w.recovered)
	time.Sleep(200 * time.Millisecond) // a few more writes on the new primary
	stopWriter()
	w.report(t)
	w.checkNoDoubleApply(t)
	checkAcked(t, c, newP, w.ackedIDs(), "new primary "+newP.Name)
	rejoin(t, c, old, w.ackedIDs())
}

// checkNoDoubleApply: every _id is inserted by one logical write, so a
// duplicate-key failure means the driver's automatic retry of a write that
// had been applied (and replicated) was applied again instead of being
// recognised by its lsid + txnNumber.
func (w *writer) checkNoDoubleApply(t *testing.T) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.dupKeys) > 0 {
		t.Errorf("retryable writes applied twice across failover: inserts of _id %v failed with E11000 on the "+
			"driver's retry; want the new primary to return the first attempt's result (lsid + txnNumber dedup)", w.dupKeys)
	}
}

func (w *writer) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.acked)
}

func (w *writer) ackedIDs() []int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]int64(nil), w.acked...)
}

func (w *writer) report(t *testing.T) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t.Logf("failover: client-observed write gap (last ack before kill to first ack after) %v; "+
		"first failed write to first successful write %v; %d failed writes; %d acknowledged",
		w.gap.Round(time.Millisecond), w.gapFail.Round(time.Millisecond), w.failures, len(w.acked))
	for _, e := range w.errs {
		t.Logf("failed write: %s", e)
	}
}

// waitNewPrimary waits (bounded) for a primary other than old.
func waitNewPrimary(t *testing.T, c *cluster.Cluster, old *cluster.Member, d time.Duration) *cluster.Member {
	t.Helper()
	var p *cluster.Member
	eventually(t, d, "a new primary other than "+old.Name, func() error {
		ctx, cancel := ctxT(2 * time.Second)
		defer cancel()
		m, err := c.Primary(ctx)
		if err != nil {
			return err
		}
		if m == old {
			return errors.New(old.Name + " is still primary")
		}
		p = m
		return nil
	})
	return p
}

// checkAcked fails t unless member m holds every id in ids (read from m
// directly, bounded).
func checkAcked(t *testing.T, c *cluster.Cluster, m *cluster.Member, ids []int64, who string) {
	t.Helper()
	coll := direct(t, c, m).Database("repl_b").Collection("w",
		options.Collection().SetReadPreference(readpref.PrimaryPreferred()))
	eventually(t, 10*time.Second, who+" holds every acknowledged write", func() error {
		return missingIDs(coll, ids)
	})
}

func missingIDs(coll *mongo.Collection, ids []int64) error {
	ctx, cancel := ctxT(5 * time.Second)
	defer cancel()
	cur, err := coll.Find(ctx, bson.D{})
	if err != nil {
		return err
	}
	var docs []struct {
		ID int64 `bson:"_id"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		return err
	}
	have := make(map[int64]bool, len(docs))
	for _, d := range docs {
		have[d.ID] = true
	}
	var missing []int64
	for _, id := range ids {
		if !have[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%d of %d acknowledged writes missing, e.g. _id %v", len(missing), len(ids), missing[:min(5, len(missing))])
	}
	return nil
}

// rejoin restarts the killed old primary and expects it back as SECONDARY
// holding every acknowledged write.
func rejoin(t *testing.T, c *cluster.Cluster, old *cluster.Member, ids []int64) {
	t.Helper()
	ctx, cancel := ctxT(30 * time.Second)
	defer cancel()
	if _, err := c.Restart(ctx, old.Name); err != nil {
		t.Fatalf("restart old primary %s: %v", old.Name, err)
	}
	var last cluster.HelloReply
	deadline := time.Now().Add(rejoinBound)
	for !last.Secondary {
		if time.Now().After(deadline) {
			t.Fatalf("old primary %s did not rejoin as SECONDARY within %v after restart: last hello "+
				"isWritablePrimary=%v secondary=%v primary=%q (if it holds writes the set never "+
				"majority-committed, it needs rollback — issue #4 item 7)",
				old.Name, rejoinBound, last.IsWritablePrimary, last.Secondary, last.Primary)
		}
		hctx, hcancel := ctxT(2 * time.Second)
		last, _ = c.Hello(hctx, old)
		hcancel()
		time.Sleep(100 * time.Millisecond)
	}
	checkAcked(t, c, old, ids, "rejoined old primary "+old.Name)
}

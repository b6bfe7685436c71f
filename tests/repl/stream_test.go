package repl

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/internal/netclient"
)

// Secondaries tail their source's oplog over one exhaust getMore stream
// (internal/repl/fetcher/stream.go). These tests break, step down and
// chain that stream on real members and check that every member ends with
// exactly the primary's oplog: no gap, no duplicate.

// oplogOf is a member's oplog as ts/term pairs in order.
func oplogOf(ctx context.Context, cl *mongo.Client) ([]string, error) {
	cur, err := cl.Database("local").Collection("oplog.rs").Find(ctx, bson.D{},
		options.Find().SetProjection(bson.D{{Key: "ts", Value: 1}, {Key: "t", Value: 1}}))
	if err != nil {
		return nil, err
	}
	defer cur.Close(ctx)
	var out []string
	for cur.Next(ctx) {
		var e struct {
			TS bson.Timestamp `bson:"ts"`
			T  int64          `bson:"t"`
		}
		if err := cur.Decode(&e); err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("%d.%d@%d", e.TS.T, e.TS.I, e.T))
	}
	return out, cur.Err()
}

// sameOplogs waits until every data member holds exactly the oplog of
// want (the primary), entry for entry.
func sameOplogs(t *testing.T, c *cluster.Cluster, want *cluster.Member, d time.Duration) {
	t.Helper()
	eventually(t, d, "every member holds exactly the primary's oplog", func() error {
		ctx, cancel := ctxT(10 * time.Second)
		defer cancel()
		ref, err := oplogOf(ctx, direct(t, c, want))
		if err != nil {
			return err
		}
		for _, m := range secondaries(c, want) {
			got, err := oplogOf(ctx, direct(t, c, m))
			if err != nil {
				return fmt.Errorf("%s: %w", m.Name, err)
			}
			if err := diffOplog(ref, got); err != nil {
				return fmt.Errorf("%s vs %s: %w", m.Name, want.Name, err)
			}
		}
		return nil
	})
}

// diffOplog compares a member's oplog with the primary's from the later
// of their first entries on (an initial sync starts at its source's
// newest entry, so older ones are not there): same entries, same order,
// none missing or twice.
func diffOplog(want, got []string) error {
	if len(got) == 0 {
		return fmt.Errorf("empty oplog, want %d entries", len(want))
	}
	if start := slices.Index(want, got[0]); start >= 0 {
		want = want[start:]
	} else if start := slices.Index(got, at(want, 0)); start >= 0 {
		got = got[start:] // the primary itself was initial-synced later
	} else {
		return fmt.Errorf("first entry %s is not in the primary's oplog", got[0])
	}
	seen := map[string]bool{}
	for i, e := range got {
		if seen[e] {
			return fmt.Errorf("entry %s twice", e)
		}
		seen[e] = true
		if i >= len(want) || want[i] != e {
			return fmt.Errorf("entry %d is %s, want %v (of %d)", i, e, at(want, i), len(want))
		}
	}
	if len(got) != len(want) {
		return fmt.Errorf("%d entries, want %d", len(got), len(want))
	}
	return nil
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "<none>"
}

// loadDocs inserts n batches of 5 documents (_ids prefixed by prefix)
// or fewer if stop is closed, and returns how many were acknowledged.
func loadDocs(coll *mongo.Collection, prefix string, n int, stop <-chan struct{}) int {
	done := 0
	for i := 0; i < n; i++ {
		select {
		case <-stop:
			return done
		default:
		}
		docs := make([]any, 5)
		for j := range docs {
			docs[j] = bson.D{{Key: "_id", Value: fmt.Sprintf("%s%05d-%d", prefix, i, j)}, {Key: "pad", Value: "xxxxxxxxxxxxxxxx"}}
		}
		ctx, cancel := ctxT(20 * time.Second)
		_, err := coll.InsertMany(ctx, docs)
		cancel()
		if err == nil {
			done++
		}
	}
	return done
}

// TestStreamKilledMidLoad kills the primary's streaming oplog getMores
// (killOp: the stream ends with an error mid-load, as when its link
// breaks) over and over while writes flow; each secondary restarts from
// its last fetched entry and ends with exactly the primary's oplog.
func TestStreamKilledMidLoad(t *testing.T) {
	c := upSet(t, cluster.Spec{Data: 3, Chaining: "false"})
	p := primary(t, c, 10*time.Second)
	coll := direct(t, c, p).Database("repl_stream").Collection("k", options.Collection().SetWriteConcern(writeconcern.W1()))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); loadDocs(coll, "k", 400, stop) }()
	var kills atomic.Int32
	admin := direct(t, c, p).Database("admin")
	for i := 0; i < 40 && kills.Load() < 12; i++ {
		ctx, cancel := ctxT(5 * time.Second)
		var res struct {
			Inprog []struct {
				OpID any `bson:"opid"`
			} `bson:"inprog"`
		}
		err := admin.RunCommand(ctx, bson.D{{Key: "currentOp", Value: 1}, {Key: "ns", Value: "local.oplog.rs"}, {Key: "op", Value: "getmore"}}).Decode(&res)
		for _, op := range res.Inprog {
			if admin.RunCommand(ctx, bson.D{{Key: "killOp", Value: 1}, {Key: "op", Value: op.OpID}}).Err() == nil {
				kills.Add(1)
			}
		}
		cancel()
		if err != nil {
			t.Fatalf("currentOp: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	wg.Wait()
	if kills.Load() == 0 {
		t.Fatal("no streaming getMore was found to kill")
	}
	t.Logf("killed %d streaming getMores", kills.Load())
	sameOplogs(t, c, p, 30*time.Second)
}

// TestStreamStepDown steps the primary down while its secondaries stream
// from it under a w:"majority" load; afterwards every member holds the
// new primary's oplog exactly and every acknowledged document.
func TestStreamStepDown(t *testing.T) {
	c := upSet(t, cluster.Spec{Data: 3})
	cl := connectSet(t, c)
	coll := cl.Database("repl_stream").Collection("s", options.Collection().SetWriteConcern(writeconcern.Majority()))
	old := primary(t, c, 10*time.Second)
	stop := make(chan struct{})
	acked := make(chan int, 1)
	go func() { acked <- loadDocs(coll, "s", 300, stop) }()
	time.Sleep(500 * time.Millisecond)
	ctx, cancel := ctxT(30 * time.Second)
	defer cancel()
	cmd := bson.D{{Key: "replSetStepDown", Value: 30}, {Key: "secondaryCatchUpPeriodSecs", Value: 5}}
	if err := c.RunAdmin(ctx, old, cmd, nil); err != nil {
		t.Logf("replSetStepDown on %s returned %v (a closed connection is allowed)", old.Name, err)
	}
	newP := waitNewPrimary(t, c, old, 15*time.Second)
	n := <-acked
	if n < 10 {
		t.Fatalf("only %d batches acknowledged", n)
	}
	sameOplogs(t, c, newP, 30*time.Second)
	for _, m := range c.Members() {
		got, err := direct(t, c, m).Database("repl_stream").Collection("s").CountDocuments(ctx, bson.D{})
		if err != nil || got < int64(5*n) {
			t.Errorf("%s holds %d documents (err %v), %d acknowledged", m.Name, got, err, 5*n)
		}
	}
}

// TestStreamChained has the third member sync from a secondary
// (replSetSyncFrom, chaining on): it is fed by that secondary's stream
// and holds the primary's oplog exactly.
func TestStreamChained(t *testing.T) {
	c := upSet(t, cluster.Spec{Data: 3, Chaining: "true"})
	p := primary(t, c, 10*time.Second)
	sec := secondaries(c, p)
	mid, leaf := sec[0], sec[1]
	coll := direct(t, c, p).Database("repl_stream").Collection("c", options.Collection().SetWriteConcern(writeconcern.W1()))
	if loadDocs(coll, "warm", 20, nil) != 20 {
		t.Fatal("warm-up inserts failed")
	}
	ctx, cancel := ctxT(30 * time.Second)
	defer cancel()
	// A member without a source of its own (mid right after the election)
	// is left by the members syncing from it, as MongoDB's are: chain
	// only once mid tails the primary, as leaf sees it (its heartbeats;
	// mid's own status may be ahead of them).
	eventually(t, 15*time.Second, mid.Name+" syncs from the primary, as "+leaf.Name+" sees it", func() error {
		if src := syncSourceOf(ctx, c, mid); src != p.Host {
			return fmt.Errorf("sync source %q", src)
		}
		if src := peerSourceOf(ctx, c, leaf, mid); src != p.Host {
			return fmt.Errorf("sync source %q in %s's replSetGetStatus", src, leaf.Name)
		}
		return nil
	})
	if err := c.RunAdmin(ctx, leaf, bson.D{{Key: "replSetSyncFrom", Value: mid.Host}}, nil); err != nil {
		t.Fatalf("replSetSyncFrom %s on %s: %v", mid.Host, leaf.Name, err)
	}
	eventually(t, 15*time.Second, leaf.Name+" syncs from "+mid.Name, func() error {
		if src := syncSourceOf(ctx, c, leaf); src != mid.Host {
			return fmt.Errorf("sync source %q", src)
		}
		return nil
	})
	if n := loadDocs(coll, "c", 300, nil); n != 300 {
		t.Fatalf("%d of 300 batches acknowledged", n)
	}
	sameOplogs(t, c, p, 30*time.Second)
	if src := syncSourceOf(ctx, c, leaf); src != mid.Host {
		t.Errorf("%s moved to sync source %q during the load, want %s", leaf.Name, src, mid.Host)
	}
}

// peerSourceOf is m's syncSourceHost as viewer's replSetGetStatus shows
// it (from m's heartbeats).
func peerSourceOf(ctx context.Context, c *cluster.Cluster, viewer, m *cluster.Member) string {
	var st struct {
		Members []struct {
			Name           string `bson:"name"`
			SyncSourceHost string `bson:"syncSourceHost"`
		} `bson:"members"`
	}
	if err := c.RunAdmin(ctx, viewer, bson.D{{Key: "replSetGetStatus", Value: 1}}, &st); err != nil {
		return "error: " + err.Error()
	}
	for _, x := range st.Members {
		if x.Name == m.Host {
			return x.SyncSourceHost
		}
	}
	return ""
}

// syncSourceOf is m's own syncSourceHost, or the error as text.
func syncSourceOf(ctx context.Context, c *cluster.Cluster, m *cluster.Member) string {
	src, err := syncSourceHost(ctx, c, m)
	if err != nil {
		return "error: " + err.Error()
	}
	return src
}

// syncSourceHost is m's own syncSourceHost (replSetGetStatus).
func syncSourceHost(ctx context.Context, c *cluster.Cluster, m *cluster.Member) (string, error) {
	var st struct {
		SyncSourceHost string `bson:"syncSourceHost"`
	}
	if err := c.RunAdmin(ctx, m, bson.D{{Key: "replSetGetStatus", Value: 1}}, &st); err != nil {
		return "", err
	}
	return st.SyncSourceHost, nil
}

// TestStreamEndsOnStepDown opens an exhaust getMore stream on the
// primary's oplog (as a secondary's fetcher does) and steps the primary
// down: the server ends the stream with a last reply without moreToCome,
// its cursor still open, instead of streaming on across the topology
// change.
func TestStreamEndsOnStepDown(t *testing.T) {
	c := upSet(t, cluster.Spec{Data: 3})
	p := primary(t, c, 10*time.Second)
	ctx, cancel := ctxT(30 * time.Second)
	defer cancel()
	pool := netclient.NewPool(netclient.Options{})
	defer pool.Close()
	conn, err := pool.Dial(ctx, p.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	reply, err := conn.Run(ctx, "local", bson.D{{Key: "find", Value: "oplog.rs"}, {Key: "tailable", Value: true},
		{Key: "awaitData", Value: true}, {Key: "batchSize", Value: int32(1)}})
	if err != nil {
		t.Fatalf("tailable find: %v", err)
	}
	id := cursorID(reply)
	if id == 0 {
		t.Fatalf("tailable find returned no open cursor: %v", reply)
	}
	if err := conn.StartExhaust(ctx, "local", bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "oplog.rs"},
		{Key: "maxTimeMS", Value: int64(100)}}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ { // the stream is flowing (empty batches every maxTimeMS)
		if _, more, err := conn.NextExhaust(ctx); err != nil || !more {
			t.Fatalf("reply %d before the step-down: more=%v err=%v", i, more, err)
		}
	}
	go func() {
		_ = c.RunAdmin(ctx, p, bson.D{{Key: "replSetStepDown", Value: 30}, {Key: "force", Value: true}}, nil)
	}()
	for n := 0; ; n++ {
		reply, more, err := conn.NextExhaust(ctx)
		if err != nil {
			t.Fatalf("stream broke instead of ending cleanly after %d replies: %v", n, err)
		}
		if !more {
			if cursorID(reply) == 0 {
				t.Fatalf("the last reply closed the cursor: %v", reply)
			}
			return
		}
		if n > 200 { // 20 s of empty batches
			t.Fatal("the stream went on across the step-down")
		}
	}
}

func cursorID(reply bson.D) int64 {
	for _, e := range reply {
		if cur, ok := e.Value.(bson.D); ok && e.Key == "cursor" {
			for _, f := range cur {
				if f.Key == "id" {
					id, _ := f.Value.(int64)
					return id
				}
			}
		}
	}
	return 0
}

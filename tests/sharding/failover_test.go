package sharding

import (
	"context"
	"fmt"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

// Bounds of the failover tests.
const (
	failoverUp    = 60 * time.Second // starting a sharded cluster
	opTimeout     = 15 * time.Second // one driver operation
	newPrimaryMax = 15 * time.Second // kill -9 to the first write on the new primary
	loadFor       = 3 * time.Second  // load kept up after the failure
)

// upSharded starts a sharded cluster of spec (shards added) in a temp
// dir; t.Cleanup stops it, logging the router's log tail if t failed.
func upSharded(t *testing.T, spec cluster.ShardedSpec) *cluster.Sharded {
	t.Helper()
	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	spec.Dir, spec.Bin, spec.DieWithParent = t.TempDir(), bin, true
	spec.PrimaryTimeout = 20 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), failoverUp)
	defer cancel()
	sc, err := cluster.UpSharded(ctx, spec)
	if sc != nil {
		t.Cleanup(func() {
			if t.Failed() {
				for _, r := range sc.Routers {
					t.Logf("%s log tail:\n%s", r.Name, fileTail(r.LogPath, 3000))
				}
			}
			_ = sc.Down(context.Background())
		})
	}
	if err != nil {
		t.Fatalf("start sharded cluster: %v", err)
	}
	return sc
}

// fileTail is the last n bytes of the file at path.
func fileTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return string(b[max(0, len(b)-n):])
}

// connectURI connects the Go driver (retryable reads and writes on, as
// by default; w:"majority" so an acknowledged write survives a failover).
func connectURI(t *testing.T, uri string) *mongo.Client {
	t.Helper()
	cl, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(opTimeout).
		SetWriteConcern(writeconcern.Majority()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Disconnect(context.Background()) })
	return cl
}

func runAdmin(ctx context.Context, cl *mongo.Client, cmd bson.D) error {
	return cl.Database("admin").RunCommand(ctx, cmd).Err()
}

// load inserts {seq: n} (the driver's _id, so a resent insert is the same
// document) into each of colls in turn and reads the last one back,
// recording what was acknowledged and every error the driver returned.
type load struct {
	colls []*mongo.Collection

	mu      sync.Mutex
	acked   map[string][]int64 // by collection name; REQUIRES: mu
	errs    []string           // REQUIRES: mu
	lastAck time.Time          // REQUIRES: mu
}

func (l *load) run(stop <-chan struct{}) {
	for seq := int64(0); seq < 100000; seq++ {
		select {
		case <-stop:
			return
		default:
		}
		c := l.colls[seq%int64(len(l.colls))]
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		_, err := c.InsertOne(ctx, bson.D{{Key: "seq", Value: seq}, {Key: "x", Value: seq % 200}})
		if err == nil {
			err = c.FindOne(ctx, bson.D{{Key: "seq", Value: seq}}).Err()
		}
		cancel()
		l.mu.Lock()
		if err != nil {
			l.errs = append(l.errs, fmt.Sprintf("seq %d: %v", seq, err))
		} else {
			l.acked[c.Name()] = append(l.acked[c.Name()], seq)
			l.lastAck = time.Now()
		}
		l.mu.Unlock()
	}
}

// start runs the load in a goroutine; the returned func stops it and
// waits for it.
func (l *load) start() func() {
	l.acked = map[string][]int64{}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() { defer close(done); l.run(stop) }()
	var once sync.Once
	return func() { once.Do(func() { close(stop); <-done }) }
}

// ackedSince reports whether a write was acknowledged after t.
func (l *load) ackedSince(t time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lastAck.After(t)
}

// waitAcked fails t unless a write is acknowledged within newPrimaryMax of
// since (an event such as a kill, described by after).
func (l *load) waitAcked(t *testing.T, since time.Time, after string) {
	t.Helper()
	for !l.ackedSince(since.Add(100 * time.Millisecond)) {
		if time.Since(since) > newPrimaryMax {
			t.Fatalf("no write acknowledged %v after %s; errors: %v", newPrimaryMax, after, l.errs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkExactlyOnce: every acknowledged seq is in its collection once, and
// no seq is there twice.
func (l *load) checkExactlyOnce(t *testing.T, ctx context.Context) {
	t.Helper()
	for _, c := range l.colls {
		cur, err := c.Find(ctx, bson.D{})
		must(t, err, "find all in %s", c.Name())
		var docs []struct {
			Seq int64 `bson:"seq"`
		}
		must(t, cur.All(ctx, &docs), "read all of %s", c.Name())
		seen := map[int64]int{}
		for _, d := range docs {
			seen[d.Seq]++
		}
		for seq, n := range seen {
			if n != 1 {
				t.Errorf("%s: seq %d present %d times", c.Name(), seq, n)
			}
		}
		l.mu.Lock()
		acked := l.acked[c.Name()]
		l.mu.Unlock()
		for _, seq := range acked {
			if seen[seq] != 1 {
				t.Errorf("%s: acknowledged seq %d present %d times", c.Name(), seq, seen[seq])
			}
		}
		if len(acked) == 0 {
			t.Errorf("%s: no write was acknowledged", c.Name())
		}
	}
}

// shardTwoColls makes db.s sharded on {x: 1} (split at x: 100) and db.u
// unsharded, and returns them.
func shardTwoColls(t *testing.T, ctx context.Context, cl *mongo.Client) []*mongo.Collection {
	t.Helper()
	must(t, runAdmin(ctx, cl, bson.D{{Key: "enableSharding", Value: "db"}}), "enableSharding")
	must(t, runAdmin(ctx, cl, bson.D{{Key: "shardCollection", Value: "db.s"}, {Key: "key", Value: bson.D{{Key: "x", Value: 1}}}}), "shardCollection")
	must(t, runAdmin(ctx, cl, bson.D{{Key: "split", Value: "db.s"}, {Key: "middle", Value: bson.D{{Key: "x", Value: 100}}}}), "split")
	db := cl.Database("db")
	_, err := db.Collection("u").InsertOne(ctx, bson.D{{Key: "seq", Value: -1}})
	must(t, err, "create db.u")
	return []*mongo.Collection{db.Collection("s"), db.Collection("u")}
}

// TestFailoverShardPrimary: a shard of three members; its primary steps
// down with no traffic (the router follows at once, checkFollowsStepDown);
// then under retryable writes and reads through the router its primary is
// killed (-9), then the new primary steps down. The driver sees no error (the router waits
// for the next primary, which its hello monitor learns, and resends what
// is retryable), the router writes to each new primary within
// newPrimaryMax, and every acknowledged write is present exactly once.
func TestFailoverShardPrimary(t *testing.T) {
	sc := upSharded(t, cluster.ShardedSpec{Shards: 1, ShardMembers: 3, ConfigMembers: 1, Routers: 1})
	cl := connectURI(t, sc.URI())
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	l := &load{colls: shardTwoColls(t, ctx, cl)}
	sh := sc.Shards[0]
	checkFollowsStepDown(t, ctx, cl, sh)
	stop := l.start()
	defer stop()
	time.Sleep(time.Second)

	old, err := sh.Kill(ctx, "primary")
	must(t, err, "kill the shard primary")
	killed := time.Now()
	l.waitAcked(t, killed, fmt.Sprintf("killing %s", old.Name))
	t.Logf("first write acknowledged %v after kill -9 of %s", time.Since(killed).Round(time.Millisecond), old.Name)
	time.Sleep(loadFor)

	// The new primary steps down (no process dies): the router follows
	// the next one, elected among the two members left.
	p, err := sh.Primary(ctx)
	must(t, err, "new primary")
	if p.Name == old.Name {
		t.Fatalf("%s is still the primary", p.Name)
	}
	err = sh.RunAdmin(ctx, p, bson.D{{Key: "replSetStepDown", Value: 30}, {Key: "secondaryCatchUpPeriodSecs", Value: 5}}, nil)
	t.Logf("replSetStepDown on %s: %v (a closed connection is allowed)", p.Name, err)
	stepped := time.Now()
	l.waitAcked(t, stepped, fmt.Sprintf("%s stepped down", p.Name))
	time.Sleep(loadFor)
	stop()
	if len(l.errs) > 0 {
		t.Errorf("the driver saw %d errors, first: %v", len(l.errs), l.errs[0])
	}
	p3, err := sh.Primary(ctx)
	must(t, err, "primary after the stepdown")
	if p3.Name == p.Name || p3.Name == old.Name {
		t.Fatalf("primary after the stepdown is %s", p3.Name)
	}
	l.checkExactlyOnce(t, ctx)
}

// checkFollowsStepDown steps sh's primary down with no traffic through
// the router: the router's connPoolStats must name the new primary within
// followMax of it being elected (its hello monitor is told by the
// awaitable hello the election answers; polling would take up to 10 s).
func checkFollowsStepDown(t *testing.T, ctx context.Context, cl *mongo.Client, sh *cluster.Cluster) {
	t.Helper()
	const followMax = 2 * time.Second
	first, err := sh.Primary(ctx)
	must(t, err, "primary of %s", sh.Spec().Name)
	err = sh.RunAdmin(ctx, first, bson.D{{Key: "replSetStepDown", Value: 5}, {Key: "secondaryCatchUpPeriodSecs", Value: 5}}, nil)
	t.Logf("replSetStepDown on %s: %v (a closed connection is allowed)", first.Name, err)
	var elected time.Time
	var newHost string
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if elected.IsZero() {
			if p, err := sh.Primary(ctx); err == nil && p.Name != first.Name {
				elected, newHost = time.Now(), p.Host
			}
		}
		if !elected.IsZero() && routerPrimary(t, ctx, cl, sh.Spec().Name) == newHost {
			t.Logf("the router named the new primary %v after the election was seen", time.Since(elected).Round(time.Millisecond))
			return
		}
		if !elected.IsZero() && time.Since(elected) > followMax {
			t.Fatalf("the router still names %q as %s's primary %v after %s was elected", routerPrimary(t, ctx, cl, sh.Spec().Name), sh.Spec().Name, followMax, newHost)
		}
	}
	t.Fatalf("no new primary of %s within 20 s of the stepdown", sh.Spec().Name)
}

// routerPrimary is the member connPoolStats names as set's primary ("" if
// none).
func routerPrimary(t *testing.T, ctx context.Context, cl *mongo.Client, set string) string {
	t.Helper()
	var out struct {
		ReplicaSets map[string]struct {
			Hosts []struct {
				Addr     string `bson:"addr"`
				IsMaster bool   `bson:"ismaster"`
			} `bson:"hosts"`
		} `bson:"replicaSets"`
	}
	must(t, cl.Database("admin").RunCommand(ctx, bson.D{{Key: "connPoolStats", Value: 1}}).Decode(&out), "connPoolStats")
	for _, h := range out.ReplicaSets[set].Hosts {
		if h.IsMaster {
			return h.Addr
		}
	}
	return ""
}

// TestFailoverConfigPrimary: with two of three config servers down (no
// config primary can be elected), CRUD on the cached sharded and
// unsharded collections goes on through the router; shardCollection waits
// for a config primary, and succeeds once a member is back and one is
// elected.
func TestFailoverConfigPrimary(t *testing.T) {
	sc := upSharded(t, cluster.ShardedSpec{Shards: 1, ShardMembers: 1, ConfigMembers: 3, Routers: 1})
	cl := connectURI(t, sc.URI())
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	colls := shardTwoColls(t, ctx, cl)
	for _, c := range colls { // warm the router's routing cache
		if err := c.FindOne(ctx, bson.D{}).Err(); err != nil && err != mongo.ErrNoDocuments {
			t.Fatalf("warm %s: %v", c.Name(), err)
		}
	}
	cfg := sc.Config
	waitMetadataEverywhere(t, ctx, cfg, "db.s")
	p, err := cfg.Kill(ctx, "primary")
	must(t, err, "kill the config primary")
	var down string
	for _, m := range cfg.Members() {
		if m.Name != p.Name {
			_, err := cfg.Kill(ctx, m.Name)
			must(t, err, "kill config member %s", m.Name)
			down = m.Name
			break
		}
	}

	crud(t, ctx, colls, 0, 20, "without a config primary")
	// Forgetting the cached metadata, the router reads it again from the
	// config server left (a secondary), as mongos reads its metadata.
	must(t, runAdmin(ctx, cl, bson.D{{Key: "flushRouterConfig", Value: 1}}), "flushRouterConfig")
	crud(t, ctx, colls, 20, 30, "after flushRouterConfig without a config primary")

	type result struct {
		err error
		at  time.Time
	}
	done := make(chan result, 1)
	go func() {
		err := runAdmin(ctx, cl, bson.D{{Key: "shardCollection", Value: "db.t"}, {Key: "key", Value: bson.D{{Key: "x", Value: 1}}}})
		done <- result{err, time.Now()}
	}()
	select {
	case r := <-done:
		t.Fatalf("shardCollection returned without a config primary: %v", r.err)
	case <-time.After(2 * time.Second):
	}
	restarted := time.Now()
	_, err = cfg.Restart(ctx, down)
	must(t, err, "restart config member %s", down)
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("shardCollection after the config set recovered: %v", r.err)
		}
		t.Logf("shardCollection succeeded %v after the config member restarted", r.at.Sub(restarted).Round(time.Millisecond))
	case <-time.After(30 * time.Second):
		t.Fatal("shardCollection still waiting 30 s after the config set recovered")
	}
	must(t, runAdmin(ctx, cl, bson.D{{Key: "split", Value: "db.t"}, {Key: "middle", Value: bson.D{{Key: "x", Value: 5}}}}), "split after recovery")
}

// waitMetadataEverywhere waits (bounded) until a majority read of
// config.collections on every member of the config set finds ns: the
// member left after the failures then holds the metadata.
func waitMetadataEverywhere(t *testing.T, ctx context.Context, cfg *cluster.Cluster, ns string) {
	t.Helper()
	rc := options.Collection().SetReadConcern(readconcern.Majority())
	for _, m := range cfg.Members() {
		cl, err := cfg.Client(m)
		must(t, err, "connect to config member %s", m.Name)
		coll := cl.Database("config").Collection("collections", rc)
		for end := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: ns}}).Err()
			if err == nil {
				break
			}
			if time.Now().After(end) {
				t.Fatalf("config member %s: %s not majority-committed there: %v", m.Name, ns, err)
			}
		}
	}
}

// crud inserts, updates and reads {seq: i} for i in [from, to) in each
// of colls, each step bounded by 5 s.
func crud(t *testing.T, ctx context.Context, colls []*mongo.Collection, from, to int, what string) {
	t.Helper()
	for i := from; i < to; i++ {
		for _, c := range colls {
			octx, ocancel := context.WithTimeout(ctx, 5*time.Second)
			_, err := c.InsertOne(octx, bson.D{{Key: "seq", Value: i}, {Key: "x", Value: i * 10}})
			if err == nil {
				_, err = c.UpdateOne(octx, bson.D{{Key: "seq", Value: i}, {Key: "x", Value: i * 10}}, bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 1}}}})
			}
			if err == nil {
				err = c.FindOne(octx, bson.D{{Key: "seq", Value: i}, {Key: "y", Value: 1}}).Err()
			}
			ocancel()
			must(t, err, "CRUD on %s %s (op %d)", c.Name(), what, i)
		}
	}
}

// TestFailoverRouter: two routers in the connection string; one is killed
// (-9) under load; the driver goes on through the other without an error
// (its retryable writes and reads are retried there).
func TestFailoverRouter(t *testing.T) {
	sc := upSharded(t, cluster.ShardedSpec{Shards: 1, ShardMembers: 1, ConfigMembers: 1, Routers: 2})
	cl := connectURI(t, sc.URI())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	l := &load{colls: shardTwoColls(t, ctx, cl)}
	stop := l.start()
	defer stop()
	time.Sleep(time.Second)
	r := sc.Routers[0]
	must(t, syscall.Kill(r.PID, syscall.SIGKILL), "kill -9 %s", r.Name)
	killed := time.Now()
	l.waitAcked(t, killed, fmt.Sprintf("killing %s", r.Name))
	time.Sleep(loadFor)
	stop()
	if len(l.errs) > 0 {
		t.Errorf("the driver saw %d errors, first: %v", len(l.errs), l.errs[0])
	}
	if sc.RouterAlive(r) {
		t.Fatalf("%s still runs", r.Name)
	}
	l.checkExactlyOnce(t, ctx)
}

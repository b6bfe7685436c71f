package sharding

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"

	"github.com/relaydb/relaydb/internal/cluster"
)

// Helpers of the migration fault tests (migration_faults_test.go) and the
// linearizability test (linearizable_test.go): a sharded cluster of
// multi-member sets started with cluster.UpSharded (shards added), the
// collection mig.c of migration_test.go, and bounded waits on what the
// config servers and each shard's primary hold.

// linzBound bounds every wait of these tests (an election, a recovery,
// a range deletion).
const linzBound = 40 * time.Second

// linzCluster is a running sharded cluster and a client through its
// router (w:"majority", so an acknowledged write survives a failover).
type linzCluster struct {
	sc    *cluster.Sharded
	cl    *mongo.Client
	admin *mongo.Database
}

// linzUp starts two shards of shardMembers members each and a config set
// of configMembers; orphanCleanupDelaySecs is 0 on every shard member, so
// a delayed range deletion (a recovered migration's) runs at once.
func linzUp(t *testing.T, shardMembers, configMembers int) *linzCluster {
	t.Helper()
	sc := upSharded(t, cluster.ShardedSpec{Shards: 2, ShardMembers: shardMembers, ConfigMembers: configMembers, Routers: 1})
	t.Cleanup(func() {
		if t.Failed() {
			for _, c := range append([]*cluster.Cluster{sc.Config}, sc.Shards...) {
				for _, m := range c.Members() {
					t.Logf("%s/%s log tail:\n%s", c.Spec().Name, m.Name, fileTail(m.LogPath, 4000))
				}
			}
		}
	})
	lc := &linzCluster{sc: sc, cl: connectURI(t, sc.URI())}
	lc.admin = lc.cl.Database("admin")
	for _, sh := range sc.Shards {
		for _, m := range sh.Members() {
			must(t, sh.RunAdmin(ctxT(t), m, bson.D{{Key: "setParameter", Value: 1}, {Key: "orphanCleanupDelaySecs", Value: 0}}, nil),
				"setParameter on %s/%s", sh.Spec().Name, m.Name)
		}
	}
	return lc
}

// shard is the replica set of shard name (sh0, sh1).
func (lc *linzCluster) shard(t *testing.T, name string) *cluster.Cluster {
	t.Helper()
	for _, sh := range lc.sc.Shards {
		if sh.Spec().Name == name {
			return sh
		}
	}
	t.Fatalf("no shard %s", name)
	return nil
}

// loadMig makes mig.c sharded on {x: 1} with migDocs documents of pad
// bytes each (x = _id = 0..migDocs-1, v = 0), split at x: 1500; it returns
// the collection (through the router) and the shard owning [1500, MaxKey).
func (lc *linzCluster) loadMig(t *testing.T, pad int) (*mongo.Collection, string) {
	t.Helper()
	must(t, lc.admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "mig.c"}, {Key: "key", Value: bson.D{{Key: "x", Value: 1}}}}).Err(), "shardCollection")
	coll := lc.cl.Database("mig").Collection("c")
	docs := make([]any, migDocs)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "x", Value: int32(i)}, {Key: "v", Value: int64(0)}, {Key: "pad", Value: fmt.Sprintf("%0*d", pad, i)}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), linzBound)
	defer cancel()
	_, err := coll.InsertMany(ctx, docs)
	must(t, err, "load mig.c")
	must(t, lc.admin.RunCommand(ctxT(t), bson.D{{Key: "split", Value: "mig.c"}, {Key: "middle", Value: bson.D{{Key: "x", Value: int32(1500)}}}}).Err(), "split")
	lc.waitConfigEverywhere(t, "shards", bson.D{}, 2)
	lc.waitConfigEverywhere(t, "chunks", bson.D{{Key: "uuid", Value: lc.collUUID(t, "mig.c")}}, 2)
	return coll, lc.owner(t, "mig.c", 1500)
}

// waitConfigEverywhere waits until a majority read of config.<coll> on
// every config member counts want documents of filter. A shard that read
// its metadata from a lagging config member right after addShard failed
// moveChunk with ShardNotFound (fixed in 0220748: a migration reads the
// config primary); the wait stays so these tests start from metadata
// every member has. A process's metadata reads are pinned at the config
// time it has seen (configsvr.Clock); that time is not gossiped between
// processes as MongoDB's vector clock does (TODO(#14)).
func (lc *linzCluster) waitConfigEverywhere(t *testing.T, coll string, filter bson.D, want int64) {
	t.Helper()
	for _, m := range lc.sc.Config.Members() {
		cl, err := lc.sc.Config.Client(m)
		must(t, err, "connect to config member %s", m.Name)
		c := cl.Database("config").Collection(coll, options.Collection().SetReadConcern(readconcern.Majority()))
		linzEventually(t, "config member %s has the metadata", func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			n, err := c.CountDocuments(ctx, filter)
			if err == nil && n != want {
				err = fmt.Errorf("config.%s: %d documents, want %d", coll, n, want)
			}
			return err
		}, m.Name)
	}
}

// collUUID is ns's uuid in config.collections (config primary).
func (lc *linzCluster) collUUID(t *testing.T, ns string) any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), linzBound)
	defer cancel()
	p, err := lc.sc.Config.WaitPrimary(ctx)
	must(t, err, "config primary")
	cl, err := lc.sc.Config.Client(p)
	must(t, err, "config client")
	var doc bson.M
	must(t, cl.Database("config").Collection("collections").FindOne(ctx, bson.D{{Key: "_id", Value: ns}}).Decode(&doc), "config.collections %s", ns)
	return doc["uuid"]
}

// moveUpper moves the chunk [1500, MaxKey) of mig.c to shard to through
// the router (waiting for the donor's deletion).
func (lc *linzCluster) moveUpper(ctx context.Context, to string) error {
	return lc.admin.RunCommand(ctx, bson.D{{Key: "moveChunk", Value: "mig.c"}, {Key: "find", Value: bson.D{{Key: "x", Value: int32(2000)}}},
		{Key: "to", Value: to}, {Key: "_waitForDelete", Value: true}}).Err()
}

// owner reads config.chunks on the config primary (majority) for the
// shard owning x of ns.
func (lc *linzCluster) owner(t *testing.T, ns string, x int32) string {
	t.Helper()
	var got string
	linzEventually(t, "the owner of x=%d in config.chunks", func() error {
		var err error
		got, err = lc.ownerOnce(ns, x)
		return err
	}, x)
	return got
}

func (lc *linzCluster) ownerOnce(ns string, x int32) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p, err := lc.sc.Config.Primary(ctx)
	if err != nil {
		return "", err
	}
	cl, err := lc.sc.Config.Client(p)
	if err != nil {
		return "", err
	}
	db := cl.Database("config", options.Database().SetReadConcern(readconcern.Majority()))
	var coll bson.M
	if err := db.Collection("collections").FindOne(ctx, bson.D{{Key: "_id", Value: ns}}).Decode(&coll); err != nil {
		return "", fmt.Errorf("config.collections: %w", err)
	}
	return chunkOwnerIn(db.Collection("chunks"), coll["uuid"], x)
}

// chunkOwnerIn reads the chunks of collection uuid in chunks for the
// shard owning x (the shard key is {x: 1}).
func chunkOwnerIn(chunks *mongo.Collection, uuid any, x int32) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cur, err := chunks.Find(ctx, bson.D{{Key: "uuid", Value: uuid}})
	if err != nil {
		return "", err
	}
	var docs []struct {
		Min   bson.Raw `bson:"min"`
		Max   bson.Raw `bson:"max"`
		Shard string   `bson:"shard"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		return "", err
	}
	for _, c := range docs {
		if boundLE(c.Min, x) && !boundLE(c.Max, x) {
			return c.Shard, nil
		}
	}
	return "", fmt.Errorf("no chunk of collection %v holds x=%d: %+v", uuid, x, docs)
}

// primaryCount counts filter's documents of mig.c on shard's primary
// (a direct connection: orphans count).
func (lc *linzCluster) primaryCount(t *testing.T, shard string, filter bson.D) (int64, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	sh := lc.shard(t, shard)
	p, err := sh.Primary(ctx)
	if err != nil {
		return 0, err
	}
	cl, err := sh.Client(p)
	if err != nil {
		return 0, err
	}
	return cl.Database("mig").Collection("c").CountDocuments(ctx, filter)
}

// upperRange is the filter of [1500, MaxKey) on x.
func upperRange() bson.D { return bson.D{{Key: "x", Value: bson.D{{Key: "$gte", Value: int32(1500)}}}} }

// waitNoCoordinator waits until shard's primary has no migration
// coordinator document left (the migration, or its recovery, is over).
func (lc *linzCluster) waitNoCoordinator(t *testing.T, shard string) {
	t.Helper()
	linzEventually(t, "no coordinator document on %s", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		sh := lc.shard(t, shard)
		p, err := sh.Primary(ctx)
		if err != nil {
			return err
		}
		cl, err := sh.Client(p)
		if err != nil {
			return err
		}
		n, err := cl.Database("config").Collection("migrationCoordinators").CountDocuments(ctx, bson.D{})
		if err == nil && n != 0 {
			err = fmt.Errorf("%d coordinator documents on %s", n, p.Name)
		}
		return err
	}, shard)
}

// checkUpperPlacement checks that config.chunks and the data agree on
// [1500, MaxKey) (upperPlacement) and returns its owner; it fails t if
// they do not within linzBound.
func (lc *linzCluster) checkUpperPlacement(t *testing.T, coll *mongo.Collection) string {
	t.Helper()
	owner, err := lc.upperPlacement(t, coll)
	if err != nil {
		t.Fatal(err)
	}
	return owner
}

// upperPlacement waits (linzBound) until the owner of [1500, MaxKey) in
// config.chunks (majority read on the config primary, read again each
// time: a config primary elected a moment ago reads an older majority
// snapshot) is one shard and the other shard's primary holds none of
// the range (its range deletion ran); then the owner's primary must hold
// what the router counts of it. It returns the owner, or why not.
func (lc *linzCluster) upperPlacement(t *testing.T, coll *mongo.Collection) (string, error) {
	t.Helper()
	var owner, last string
	deadline := time.Now().Add(linzBound)
	for owner == "" {
		lo, err := lc.ownerOnce("mig.c", 1500)
		hi, herr := lc.ownerOnce("mig.c", 1<<30)
		var n int64
		switch {
		case err != nil || herr != nil:
			last = fmt.Sprintf("config.chunks: %v %v", err, herr)
		case lo != hi:
			last = fmt.Sprintf("[1500, MaxKey) is split between %s and %s", lo, hi)
		default:
			if n, err = lc.primaryCount(t, otherShard(lo), upperRange()); err == nil && n == 0 {
				owner = lo
				continue
			}
			last = fmt.Sprintf("%s holds %d documents (%v) of [1500, MaxKey), owned by %s in config.chunks", otherShard(lo), n, err, lo)
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("config.chunks and the data do not agree within %v: %s", linzBound, last)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The writers only insert (into this range) and update: counts grow,
	// so the router's count taken between two of the owner's lies between.
	before, err := lc.primaryCount(t, owner, upperRange())
	if err != nil {
		return "", fmt.Errorf("count on %s: %w", owner, err)
	}
	routed, err := coll.CountDocuments(ctxT(t), upperRange())
	if err != nil {
		return "", fmt.Errorf("count [1500, MaxKey) through the router: %w", err)
	}
	after, err := lc.primaryCount(t, owner, upperRange())
	if err != nil {
		return "", fmt.Errorf("count on %s: %w", owner, err)
	}
	if routed < before || routed > after || before < 1500 {
		return "", fmt.Errorf("%s (the owner in config.chunks) holds %d then %d documents of [1500, MaxKey); the router counts %d between", owner, before, after, routed)
	}
	return owner, nil
}

// linzEventually retries f every 100 ms until it returns nil, failing t
// after linzBound with f's last error.
func linzEventually(t *testing.T, what string, f func() error, args ...any) {
	t.Helper()
	deadline := time.Now().Add(linzBound)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v: %v", fmt.Sprintf(what, args...), linzBound, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// failPoint arms (data != nil) or disarms (data == nil) the failCommand
// fail point on member m of set c.
func failPoint(t *testing.T, c *cluster.Cluster, m *cluster.Member, mode any, data bson.D) {
	t.Helper()
	cmd := bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: mode}}
	if data != nil {
		cmd = append(cmd, bson.E{Key: "data", Value: data})
	}
	must(t, c.RunAdmin(ctxT(t), m, cmd, nil), "configureFailPoint on %s/%s", c.Spec().Name, m.Name)
}

// killPrimary kills -9 set c's primary and returns it.
func killPrimary(t *testing.T, c *cluster.Cluster) *cluster.Member {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m, err := c.Kill(ctx, "primary")
	must(t, err, "kill -9 %s's primary", c.Spec().Name)
	return m
}

// restartMember restarts member m of c (after a kill) and waits for a
// primary of c.
func restartMember(t *testing.T, c *cluster.Cluster, m *cluster.Member) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), linzBound)
	defer cancel()
	_, err := c.Restart(ctx, m.Name)
	must(t, err, "restart %s/%s", c.Spec().Name, m.Name)
	_, err = c.WaitPrimary(ctx)
	must(t, err, "a primary of %s", c.Spec().Name)
}

// moveUpperAsync runs moveUpper(to) (bounded by linzBound) and sends its
// error on the returned channel.
func (lc *linzCluster) moveUpperAsync(to string) <-chan error {
	moved := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), linzBound)
		defer cancel()
		moved <- lc.moveUpper(ctx, to)
	}()
	return moved
}

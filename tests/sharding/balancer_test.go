package sharding

import (
	"context"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

// balancerDocs and balancerDocBytes make about 6 MB in one chunk: with a
// chunk size of 1 MB the balancer's threshold is 3 MB.
const (
	balancerDocs     = 6000
	balancerDocBytes = 1000
)

// TestBalancer is issue #12's balancer on a real cluster: config servers
// running it every 200 ms (balancerRoundIntervalMS), two shards, one
// collection whose ~6 MB sit in one chunk on one shard, chunk size 1 MB
// (config.settings chunksize). Stopped, it counts rounds and changes
// nothing; the shard commands it relies on (autoSplitVector,
// _shardsvrGetStatsForBalancing) answer as MongoDB's; started outside
// its active window, or for a collection with noBalance, it changes
// nothing either; started, it splits
// the chunk (never moving more than 1 MB at once) and moves ranges until
// the shards differ by at most three chunk sizes, with every document
// still read once through the router; stopped again, nothing moves.
// balancerCollectionStatus says chunksImbalance before and compliant
// after.
func TestBalancer(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "balancerStop", Value: 1}}).Err(), "balancerStop")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	cfg := firstMember(t, tp)
	must(t, cfg.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "setParameter", Value: 1}, {Key: "balancerRoundIntervalMS", Value: 200}}).Err(), "setParameter")
	_, err := cfg.Database("config").Collection("settings").UpdateOne(ctxT(t), bson.D{{Key: "_id", Value: "chunksize"}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "value", Value: 1}}}}, options.UpdateOne().SetUpsert(true))
	must(t, err, "config.settings chunksize")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "bal.c"}, {Key: "key", Value: bson.D{{Key: "x", Value: 1}}}}).Err(), "shardCollection")
	insertBalancerDocs(t, cl.Database("bal").Collection("c"))
	first := chunkOwners(t, cl)[0]
	owner := first[strings.LastIndex(first, ":")+1:]

	t.Run("stoppedChangesNothing", func(t *testing.T) {
		before := chunkOwners(t, cl)
		st := waitRounds(t, admin, 3)
		if st["mode"] != "off" || st["lastError"] != "" {
			t.Fatalf("balancerStatus while stopped: %v", st)
		}
		if after := chunkOwners(t, cl); strings.Join(after, ",") != strings.Join(before, ",") {
			t.Fatalf("chunks changed while stopped: %v -> %v", before, after)
		}
		if got := collectionStatus(t, admin, "bal.c"); got != "1 false chunksImbalance" {
			t.Errorf("balancerCollectionStatus before balancing: %s", got)
		}
		err := admin.RunCommand(ctxT(t), bson.D{{Key: "balancerCollectionStatus", Value: "bal.none"}}).Err()
		if errCode(err) != 118 { // NamespaceNotSharded
			t.Errorf("balancerCollectionStatus of an unsharded collection: %v", err)
		}
	})
	t.Run("configureCollectionBalancing", func(t *testing.T) {
		configure := func(v any) error {
			return admin.RunCommand(ctxT(t), bson.D{{Key: "configureCollectionBalancing", Value: "bal.c"}, {Key: "chunkSize", Value: v}}).Err()
		}
		must(t, configure(64), "chunkSize 64")
		if got := collectionStatus(t, admin, "bal.c"); got != "64 true <nil>" {
			t.Errorf("balancerCollectionStatus with the collection's 64 MB: %s", got)
		}
		must(t, configure(0), "chunkSize 0")
		if got := collectionStatus(t, admin, "bal.c"); got != "1 false chunksImbalance" {
			t.Errorf("balancerCollectionStatus back on the cluster's 1 MB: %s", got)
		}
		if err := configure(2000); errCode(err) != 2 {
			t.Errorf("chunkSize 2000: %v, want BadValue", err)
		}
		err := admin.RunCommand(ctxT(t), bson.D{{Key: "configureCollectionBalancing", Value: "bal.none"}, {Key: "chunkSize", Value: 8}}).Err()
		if errCode(err) != 118 {
			t.Errorf("configureCollectionBalancing of an unsharded collection: %v", err)
		}
	})
	t.Run("autoSplitVector", func(t *testing.T) { checkAutoSplitVector(t, tp.shardClient(t, owner)) })
	t.Run("statsForBalancing", func(t *testing.T) {
		for _, name := range []string{"sh0", "sh1"} {
			size := shardCollSize(t, tp.shardClient(t, name))
			if want := name == owner; (size > balancerDocs*balancerDocBytes) != want || (!want && size != 0) {
				t.Errorf("%s: collSize %d (owner %s)", name, size, owner)
			}
		}
	})
	t.Run("outsideTheWindow", func(t *testing.T) {
		// Started, but the active window (config server's local time) is
		// two hours from now: rounds run, nothing moves.
		from, to := time.Now().Add(2*time.Hour), time.Now().Add(3*time.Hour)
		setWindow(t, cfg, bson.D{{Key: "start", Value: from.Format("15:04")}, {Key: "stop", Value: to.Format("15:04")}})
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "balancerStart", Value: 1}}).Err(), "balancerStart")
		before := chunkOwners(t, cl)
		if st := waitRounds(t, admin, 3); st["mode"] != "full" || st["lastError"] != "" {
			t.Fatalf("balancerStatus outside the window: %v", st)
		}
		if after := chunkOwners(t, cl); strings.Join(after, ",") != strings.Join(before, ",") {
			t.Fatalf("chunks changed outside the window: %v -> %v", before, after)
		}
	})
	t.Run("noBalance", func(t *testing.T) {
		// sh.disableBalancing: config.collections noBalance, written
		// through the router as mongosh does.
		setNoBalance(t, cl, "bal.c", true)
		setWindow(t, cfg, nil)
		before := chunkOwners(t, cl)
		waitRounds(t, admin, 3)
		if after := chunkOwners(t, cl); strings.Join(after, ",") != strings.Join(before, ",") {
			t.Fatalf("chunks of a noBalance collection changed: %v -> %v", before, after)
		}
		setNoBalance(t, cl, "bal.c", false)
	})
	t.Run("balances", func(t *testing.T) {
		start, deadline := time.Now(), time.Now().Add(90*time.Second)
		for {
			a, b := shardCollSize(t, tp.shardClient(t, "sh0")), shardCollSize(t, tp.shardClient(t, "sh1"))
			if abs64(a-b) <= 3<<20 {
				t.Logf("balanced in %v: sh0 %d, sh1 %d bytes; chunks %v", time.Since(start).Round(time.Millisecond), a, b, chunkOwners(t, cl))
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("not balanced after 90 s: sh0 %d, sh1 %d bytes; balancerStatus %v", a, b, balancerStatus(t, admin))
			}
			time.Sleep(200 * time.Millisecond)
		}
		// balancerStop waits for the round in progress (a migration in
		// flight counts on both shards): then, within the threshold, every
		// byte is on exactly one shard.
		st := balancerStatus(t, admin)
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "balancerStop", Value: 1}}).Err(), "balancerStop")
		if in := balancerStatus(t, admin)["inBalancerRound"]; in != false {
			t.Errorf("inBalancerRound %v after balancerStop answered", in)
		}
		a, b := shardCollSize(t, tp.shardClient(t, "sh0")), shardCollSize(t, tp.shardClient(t, "sh1"))
		if abs64(a-b) > 3<<20 || a+b != balancerDocs*int64(len(bsonDocBytes(t))) {
			t.Errorf("after the balancer stopped: sh0 %d, sh1 %d bytes (total %d, want %d)", a, b, a+b, balancerDocs*int64(len(bsonDocBytes(t))))
		}
		if n, err := cl.Database("bal").Collection("c").CountDocuments(ctxT(t), bson.D{}); err != nil || n != balancerDocs {
			t.Fatalf("count through the router after balancing: %d, %v", n, err)
		}
		if st["mode"] != "full" {
			t.Errorf("balancerStatus while started: %v", st)
		}
		if got := collectionStatus(t, admin, "bal.c"); got != "1 true <nil>" {
			t.Errorf("balancerCollectionStatus after balancing: %s", got)
		}
		if owners := chunkOwners(t, cl); len(owners) < 3 {
			t.Errorf("chunks after balancing: %v (a 6 MB chunk must be split before it moves)", owners)
		}
	})
	t.Run("stoppedStaysStill", func(t *testing.T) {
		before := chunkOwners(t, cl)
		waitRounds(t, admin, 3)
		if after := chunkOwners(t, cl); strings.Join(after, ",") != strings.Join(before, ",") {
			t.Fatalf("chunks changed after balancerStop: %v -> %v", before, after)
		}
	})
}

// setWindow sets (or, when nil, unsets) config.settings' balancer
// activeWindow on the config server.
func setWindow(t *testing.T, cfg *mongo.Client, w bson.D) {
	t.Helper()
	u := bson.D{{Key: "$unset", Value: bson.D{{Key: "activeWindow", Value: 1}}}}
	if w != nil {
		u = bson.D{{Key: "$set", Value: bson.D{{Key: "activeWindow", Value: w}}}}
	}
	_, err := cfg.Database("config").Collection("settings").UpdateOne(ctxT(t), bson.D{{Key: "_id", Value: "balancer"}}, u, options.UpdateOne().SetUpsert(true))
	must(t, err, "config.settings activeWindow")
}

// setNoBalance sets config.collections' noBalance of ns through the
// router (sh.disableBalancing / sh.enableBalancing).
func setNoBalance(t *testing.T, cl *mongo.Client, ns string, on bool) {
	t.Helper()
	res, err := cl.Database("config").Collection("collections").UpdateOne(ctxT(t), bson.D{{Key: "_id", Value: ns}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "noBalance", Value: on}}}})
	must(t, err, "config.collections noBalance")
	if res.MatchedCount != 1 {
		t.Fatalf("config.collections has no %s", ns)
	}
}

// bsonDocBytes is the BSON size of one inserted document (all are alike
// in size: _id and x are int32s).
func bsonDocBytes(t *testing.T) []byte {
	b, err := bson.Marshal(balancerDoc(0))
	must(t, err, "marshal")
	return b
}

func balancerDoc(i int) bson.D {
	return bson.D{{Key: "_id", Value: int32(i)}, {Key: "x", Value: int32(i)}, {Key: "pad", Value: strings.Repeat("p", balancerDocBytes)}}
}

func insertBalancerDocs(t *testing.T, coll *mongo.Collection) {
	t.Helper()
	for start := 0; start < balancerDocs; start += 1000 {
		docs := make([]any, 0, 1000)
		for i := start; i < start+1000; i++ {
			docs = append(docs, balancerDoc(i))
		}
		_, err := coll.InsertMany(ctxT(t), docs)
		must(t, err, "insert %d..", start)
	}
}

// checkAutoSplitVector: the owner cuts [MinKey, MaxKey) of ~6 MB into
// 1 MB pieces; limit bounds the keys; bad requests get MongoDB's codes.
func checkAutoSplitVector(t *testing.T, shard *mongo.Client) {
	db := shard.Database("bal")
	run := func(size int64, extra bson.D) (bson.M, error) {
		cmd := append(bson.D{
			{Key: "autoSplitVector", Value: "c"}, {Key: "keyPattern", Value: bson.D{{Key: "x", Value: 1}}},
			{Key: "min", Value: bson.D{{Key: "x", Value: bson.MinKey{}}}}, {Key: "max", Value: bson.D{{Key: "x", Value: bson.MaxKey{}}}},
			{Key: "maxChunkSizeBytes", Value: size},
		}, extra...)
		var res bson.M
		err := db.RunCommand(ctxT(t), cmd).Decode(&res)
		return res, err
	}
	res, err := run(1<<20, nil)
	must(t, err, "autoSplitVector")
	keys, _ := res["splitKeys"].(bson.A)
	if len(keys) < 4 || len(keys) > 7 || res["continuation"] != false {
		t.Fatalf("autoSplitVector of ~6 MB by 1 MB: %v", res)
	}
	prev := -1
	for _, k := range keys {
		x, _ := bound(k.(bson.D)).(int)
		if x <= prev {
			t.Fatalf("split keys not increasing: %v", keys)
		}
		prev = x
	}
	if res, err = run(1<<20, bson.D{{Key: "limit", Value: 1}}); err != nil || len(res["splitKeys"].(bson.A)) != 1 {
		t.Fatalf("limit 1: %v, %v", res, err)
	}
	if res, err = run(64<<20, nil); err != nil || len(res["splitKeys"].(bson.A)) != 0 || res["rangeDataSize"] != int64(balancerDocs*len(bsonDocBytes(t))) {
		t.Fatalf("a range smaller than the size: %v, %v", res, err)
	}
	for _, tc := range []struct {
		name  string
		size  int64
		extra bson.D
		code  int32
	}{
		{"zero size", 0, nil, 2},                                     // BadValue
		{"zero limit", 1 << 20, bson.D{{Key: "limit", Value: 0}}, 2}, // BadValue
	} {
		if _, err := run(tc.size, tc.extra); errCode(err) != tc.code {
			t.Errorf("%s: error %v, want code %d", tc.name, err, tc.code)
		}
	}
}

// TestBalancerLoadSplit is relaydb's load-based splitting on a real
// cluster: with config.settings' hotRangeOpsPerSec lowered to 100 and the
// shards sampling over 4 s windows (loadSampleWindowMS; a window needs
// 1000 sampled operations before it proposes a key), reads spread
// over one chunk's keys on one shard make the balancer split that chunk
// where the load halves and move the upper piece to the idle shard; the
// data is tiny, so no size-based move explains it.
func TestBalancerLoadSplit(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
		must(t, tp.shardClient(t, name).Database("admin").RunCommand(ctxT(t), bson.D{{Key: "setParameter", Value: 1}, {Key: "loadSampleWindowMS", Value: 4000}}).Err(), "setParameter on %s", name)
	}
	cfg := firstMember(t, tp)
	must(t, cfg.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "setParameter", Value: 1}, {Key: "balancerRoundIntervalMS", Value: 200}}).Err(), "setParameter")
	_, err := cfg.Database("config").Collection("settings").UpdateOne(ctxT(t), bson.D{{Key: "_id", Value: "balancer"}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "hotRangeOpsPerSec", Value: 100}}}}, options.UpdateOne().SetUpsert(true))
	must(t, err, "config.settings balancer")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "bal.c"}, {Key: "key", Value: bson.D{{Key: "x", Value: 1}}}}).Err(), "shardCollection")
	coll := cl.Database("bal").Collection("c")
	docs := make([]any, 1000)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "x", Value: int32(i)}}
	}
	_, err = coll.InsertMany(ctxT(t), docs)
	must(t, err, "insert")
	before := chunkOwners(t, cl)
	if len(before) != 1 {
		t.Fatalf("chunks before the load: %v", before)
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = coll.FindOne(context.Background(), bson.D{{Key: "x", Value: int32(rng.IntN(1000))}}).Err()
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		rows := sortedChunks(t, cl)
		if len(rows) == 2 && rows[0].Shard != rows[1].Shard {
			t.Logf("after the load: chunks %v", chunkOwners(t, cl))
			if n, ok := bound(rows[1].Min).(int); !ok || n < 200 || n > 800 {
				t.Errorf("load split at %v, want near the middle of [0, 1000)", rows[1].Min)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no load split in 60 s: chunks %v, balancerStatus %v", chunkOwners(t, cl), balancerStatus(t, admin))
		}
		time.Sleep(200 * time.Millisecond)
	}
	if n, err := coll.CountDocuments(ctxT(t), bson.D{}); err != nil || n != 1000 {
		t.Fatalf("count after the load split: %d, %v", n, err)
	}
}

// TestBalancerFollowsConfigPrimary: with three config servers, only the
// primary's balancer runs rounds (the secondaries' count none); after
// replSetStepDown the old primary's rounds stop and the new primary's
// start, and balancerStatus through the router reports the new one's.
func TestBalancerFollowsConfigPrimary(t *testing.T) {
	sets := startSets(t, []cluster.Spec{
		{Name: "cfg", Data: 3, ExtraArgs: []string{"--configsvr"}},
		{Name: "sh0", ExtraArgs: []string{"--shardsvr"}},
	})
	cfg, sh0 := sets[0], sets[1]
	router := harness.StartRouter(t, "cfg/"+cfg.Members()[0].Host)
	cl, err := mongo.Connect(options.Client().ApplyURI(router.URI()))
	must(t, err, "connect")
	t.Cleanup(func() { _ = cl.Disconnect(context.Background()) })
	admin := cl.Database("admin")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(sh0)}}).Err(), "addShard")
	for _, m := range cfg.Members() {
		must(t, cfg.RunAdmin(ctxT(t), m, bson.D{{Key: "setParameter", Value: 1}, {Key: "balancerRoundIntervalMS", Value: 100}}, nil), "setParameter on %s", m.Name)
	}
	rounds := func(m *cluster.Member) int64 {
		var st struct {
			Rounds int64 `bson:"numBalancerRounds"`
		}
		c, err := cfg.Client(m)
		must(t, err, "client of %s", m.Name)
		must(t, c.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "_configsvrBalancerStatus", Value: 1}},
			options.RunCmd().SetReadPreference(readpref.SecondaryPreferred())).Decode(&st), "_configsvrBalancerStatus on %s", m.Name)
		return st.Rounds
	}
	old, err := cfg.WaitPrimary(ctxT(t))
	must(t, err, "config primary")
	waitRoundsOn(t, rounds, old, 3)
	for _, m := range cfg.Members() {
		if m != old && rounds(m) != 0 {
			t.Fatalf("secondary %s ran balancer rounds", m.Name)
		}
	}
	err = cfg.RunAdmin(ctxT(t), old, bson.D{{Key: "replSetStepDown", Value: 60}, {Key: "secondaryCatchUpPeriodSecs", Value: 10}}, nil)
	t.Logf("replSetStepDown on %s: %v (a closed connection is allowed)", old.Name, err)
	var next *cluster.Member
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if p, err := cfg.Primary(ctxT(t)); err == nil && p != old {
			next = p
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no new config primary in 30 s")
		}
	}
	waitRoundsOn(t, rounds, next, 3)
	stopped := rounds(old)
	time.Sleep(time.Second) // ten intervals
	if n := rounds(old); n != stopped {
		t.Fatalf("the stepped-down %s ran %d more rounds", old.Name, n-stopped)
	}
	waitRounds(t, admin, 2) // the router follows the new primary
}

// waitRoundsOn waits until member m has run n more balancer rounds.
func waitRoundsOn(t *testing.T, rounds func(*cluster.Member) int64, m *cluster.Member, n int64) {
	t.Helper()
	start := rounds(m)
	for deadline := time.Now().Add(30 * time.Second); rounds(m) < start+n; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s ran fewer than %d balancer rounds in 30 s", m.Name, n)
		}
	}
}

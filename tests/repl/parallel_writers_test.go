package repl

import (
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

// TestParallelApplyKilledMidBatch: a secondary with replWriterThreadCount
// 4 that was down while the primary took a mix of inserts, updates,
// replacements, deletes and re-inserts (a collection whose runs are
// partitioned by document, and one with a unique index, applied whole by
// one writer) is killed -9 at random times while it catches up in
// parallel batches, four times, and restarted; it then holds exactly the
// primary's data (per-collection hashes of every document in _id order,
// as dbHash compares) and validate finds its indexes and counters
// consistent.
func TestParallelApplyKilledMidBatch(t *testing.T) {
	c := upSet(t, cluster.Spec{Data: 3, BasePort: 30870, // below the ephemeral range (32768+): 47110 met an outgoing connection in CI
		ExtraArgs: []string{"--setParameter", "replWriterThreadCount=4"}})
	p := primary(t, c, 10*time.Second)
	sec := secondaries(c, p)[0]
	if n := writerThreads(t, direct(t, c, sec)); n != int32(4) {
		t.Fatalf("getParameter replWriterThreadCount on %s: %v, want 4", sec.Name, n)
	}
	cl := connectSet(t, c)
	db := cl.Database("papply")
	ctx, cancel := ctxT(4 * time.Minute)
	defer cancel()
	if _, err := db.Collection("c").Indexes().CreateMany(ctx, []mongo.IndexModel{
		{Keys: bson.D{{Key: "u", Value: 1}}, Options: options.Index().SetUnique(true)},
		{Keys: bson.D{{Key: "tags", Value: 1}}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("p").Indexes().CreateMany(ctx, []mongo.IndexModel{
		{Keys: bson.D{{Key: "a", Value: 1}}}, {Keys: bson.D{{Key: "tags", Value: 1}}},
	}); err != nil {
		t.Fatal(err)
	}
	waitSameHashes(t, c, p, sec, 30*time.Second) // the secondary has the indexes
	if _, err := c.Kill(ctx, sec.Name); err != nil {
		t.Fatalf("kill %s: %v", sec.Name, err)
	}
	writeWhileDown(t, ctx, db.Collection("c"), 10000)
	mixedWhileDown(t, ctx, db.Collection("p"), 100000)

	top := selfTS(t, c, p)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 47))
	behind := 0
	for round := 0; round < 4; round++ {
		if _, err := c.Restart(ctx, sec.Name); err != nil {
			t.Fatalf("round %d: restart %s: %v", round, sec.Name, err)
		}
		time.Sleep(time.Duration(rng.IntN(80)) * time.Millisecond)
		if at := selfTS(t, c, sec); at.Before(top) {
			behind++
		}
		if _, err := c.Kill(ctx, sec.Name); err != nil {
			t.Fatalf("round %d: kill %s: %v", round, sec.Name, err)
		}
	}
	t.Logf("%d of 4 kills hit %s while it was behind the primary", behind, sec.Name)
	if behind == 0 {
		t.Fatalf("no kill hit %s while it was catching up: the backlog is too small for this machine", sec.Name)
	}
	if _, err := c.Restart(ctx, sec.Name); err != nil {
		t.Fatalf("final restart %s: %v", sec.Name, err)
	}
	waitSameHashes(t, c, p, sec, 90*time.Second)
	for _, coll := range []string{"c", "p"} {
		var res bson.M
		if err := direct(t, c, sec).Database("papply").RunCommand(ctx, bson.D{{Key: "validate", Value: coll}}).Decode(&res); err != nil {
			t.Fatalf("validate %s on %s: %v", coll, sec.Name, err)
		}
		if res["valid"] != true {
			t.Fatalf("validate %s on %s: %v", coll, sec.Name, res)
		}
	}
}

// mixedWhileDown inserts n documents with multikey fields, then updates,
// replaces, deletes and re-inserts documents by _id, in random order,
// many times the same _id, all w:1.
func mixedWhileDown(t *testing.T, ctx context.Context, coll *mongo.Collection, n int) {
	t.Helper()
	doc := func(i, gen int) bson.D {
		return bson.D{{Key: "_id", Value: int32(i)}, {Key: "a", Value: int32(i % 97)}, {Key: "gen", Value: int32(gen)},
			{Key: "tags", Value: bson.A{i % 5, gen % 3}}}
	}
	for lo := 0; lo < n; lo += 1000 {
		docs := make([]any, 0, 1000)
		for i := lo; i < lo+1000 && i < n; i++ {
			docs = append(docs, doc(i, 0))
		}
		if _, err := coll.InsertMany(ctx, docs); err != nil {
			t.Fatalf("insert: %v", err)
		}
	}
	rng := rand.New(rand.NewPCG(15, 2))
	var models []mongo.WriteModel
	for k := 0; k < 12000; k++ {
		id := int32(rng.IntN(n / 50)) // a hot fiftieth: several entries per _id
		byID := bson.D{{Key: "_id", Value: id}}
		switch rng.IntN(4) {
		case 0:
			models = append(models, mongo.NewUpdateOneModel().SetFilter(byID).
				SetUpdate(bson.D{{Key: "$inc", Value: bson.D{{Key: "gen", Value: 1}}}, {Key: "$push", Value: bson.D{{Key: "tags", Value: k % 4}}}}))
		case 1:
			models = append(models, mongo.NewReplaceOneModel().SetFilter(byID).SetReplacement(doc(int(id), k)).SetUpsert(true))
		case 2:
			models = append(models, mongo.NewDeleteOneModel().SetFilter(byID))
		default:
			models = append(models, mongo.NewUpdateOneModel().SetFilter(byID).
				SetUpdate(bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: k % 89}}}}).SetUpsert(true))
		}
		if len(models) == 500 {
			if _, err := coll.BulkWrite(ctx, models); err != nil {
				t.Fatalf("bulk: %v", err)
			}
			models = models[:0]
		}
	}
}

// waitSameHashes waits (bounded) until sec's papply collections hash as
// the primary's.
func waitSameHashes(t *testing.T, c *cluster.Cluster, p, sec *cluster.Member, d time.Duration) {
	t.Helper()
	want := collHashes(t, direct(t, c, p), readpref.Primary())
	eventually(t, d, fmt.Sprintf("%s hashes papply as the primary (%v)", sec.Name, want), func() error {
		got := collHashes(t, direct(t, c, sec), readpref.SecondaryPreferred())
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("hashes %v", got)
		}
		return nil
	})
}

// collHashes returns, per collection of papply, the md5 of its documents
// in _id order and their count (nil while the member cannot answer).
func collHashes(t *testing.T, cl *mongo.Client, rp *readpref.ReadPref) map[string]string {
	t.Helper()
	ctx, cancel := ctxT(20 * time.Second)
	defer cancel()
	db := cl.Database("papply", options.Database().SetReadPreference(rp))
	names, err := db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, name := range names {
		cur, err := db.Collection(name).Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
		if err != nil {
			return nil
		}
		h, n := md5.New(), 0
		for cur.Next(ctx) {
			h.Write(cur.Current)
			n++
		}
		if cur.Err() != nil {
			cur.Close(ctx)
			return nil
		}
		cur.Close(ctx)
		out[name] = fmt.Sprintf("%x/%d", h.Sum(nil), n)
	}
	return out
}

// writerThreads reads replWriterThreadCount with getParameter.
func writerThreads(t *testing.T, cl *mongo.Client) any {
	t.Helper()
	ctx, cancel := ctxT(10 * time.Second)
	defer cancel()
	var res bson.M
	if err := cl.Database("admin").RunCommand(ctx, bson.D{{Key: "getParameter", Value: 1}, {Key: "replWriterThreadCount", Value: 1}}).Decode(&res); err != nil {
		t.Fatalf("getParameter: %v", err)
	}
	return res["replWriterThreadCount"]
}

// TestReplWriterThreadCountParameter: replWriterThreadCount is taken from
// --setParameter and from the YAML file's setParameter section, reported
// by getParameter, refused at runtime (IllegalOperation, as mongod's
// startup-only parameters) and refused at startup out of 1-256.
func TestReplWriterThreadCountParameter(t *testing.T) {
	s := harness.Start(t, harness.WithArgs("--setParameter", "replWriterThreadCount=3"))
	cl := s.Client(t)
	if n := writerThreads(t, cl); n != int32(3) {
		t.Fatalf("getParameter after --setParameter: %v (%T), want 3", n, n)
	}
	ctx, cancel := ctxT(10 * time.Second)
	defer cancel()
	err := cl.Database("admin").RunCommand(ctx, bson.D{{Key: "setParameter", Value: 1}, {Key: "replWriterThreadCount", Value: 8}}).Err()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 20 || ce.Name != "IllegalOperation" || ce.Message != "not allowed to change [replWriterThreadCount] at runtime" {
		t.Fatalf("runtime setParameter: %v", err)
	}
	if n := writerThreads(t, cl); n != int32(3) {
		t.Fatalf("getParameter after the refused set: %v", n)
	}

	conf := filepath.Join(t.TempDir(), "mongod.yaml")
	if err := os.WriteFile(conf, []byte("setParameter:\n  replWriterThreadCount: 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	y := harness.Start(t, harness.WithArgs("--config", conf))
	if n := writerThreads(t, y.Client(t)); n != int32(5) {
		t.Fatalf("getParameter after the YAML file: %v, want 5", n)
	}

	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ value, want string }{
		{"0", "Invalid value for parameter replWriterThreadCount: 0 is not greater than or equal to 1"},
		{"257", "Invalid value for parameter replWriterThreadCount: 257 is not less than or equal to 256"},
	} {
		ctx, cancel := ctxT(20 * time.Second)
		out, err := exec.CommandContext(ctx, bin, "serve", "--port", "47190", "--dbpath", t.TempDir(),
			"--setParameter", "replWriterThreadCount="+tc.value).CombinedOutput()
		cancel()
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Fatalf("replWriterThreadCount=%s: %v\n%s", tc.value, err, out)
		}
	}
}

// selfTS is the ts of the last entry m applied (zero if it does not answer).
func selfTS(t *testing.T, c *cluster.Cluster, m *cluster.Member) bson.Timestamp {
	t.Helper()
	ctx, cancel := ctxT(2 * time.Second)
	defer cancel()
	ts, _ := cluster.SelfOpTime(ctx, direct(t, c, m))
	return ts
}

// writeWhileDown inserts n documents in batches, then moves unique values
// between documents, updates arrays and deletes some, all w:1.
func writeWhileDown(t *testing.T, ctx context.Context, coll *mongo.Collection, n int) {
	t.Helper()
	w1 := options.InsertMany().SetOrdered(true)
	for lo := 0; lo < n; lo += 1000 {
		docs := make([]any, 0, 1000)
		for i := lo; i < lo+1000 && i < n; i++ {
			docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "u", Value: int32(i)},
				{Key: "tags", Value: bson.A{i % 7, i % 11}}, {Key: "pad", Value: "0123456789abcdef0123456789abcdef"}})
		}
		if _, err := coll.InsertMany(ctx, docs, w1); err != nil {
			t.Fatalf("insert: %v", err)
		}
	}
	for i := 0; i < 300; i++ { // swap u between i and i+1 through a free value
		a, b := int32(2*i), int32(2*i+1)
		for _, step := range []struct {
			id any
			u  int32
		}{{a, int32(-1)}, {b, a}, {a, b}} {
			if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: step.id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "u", Value: step.u}}}}); err != nil {
				t.Fatalf("swap: %v", err)
			}
		}
	}
	if _, err := coll.UpdateMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$mod", Value: bson.A{5, 0}}}}},
		bson.D{{Key: "$push", Value: bson.D{{Key: "tags", Value: "five"}}}}); err != nil {
		t.Fatalf("updateMany: %v", err)
	}
	if _, err := coll.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$mod", Value: bson.A{13, 0}}}}}); err != nil {
		t.Fatalf("deleteMany: %v", err)
	}
}

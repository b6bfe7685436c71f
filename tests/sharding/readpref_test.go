package sharding

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

// rpDocs is how many documents the read-preference tests read.
const rpDocs = 5

// TestReadPreferenceTags drives read preference through the router on a
// shard of three members, each tagged {name: m0|m1|m2} by
// replSetReconfig: tag sets send reads (on the fast path: find, also on a
// sharded collection; decoded: aggregate; and the driver's own
// $readPreference with a cursor) to the tagged member only, counted by each member's serverStatus opcounters; a
// mode secondary no member matches is FailedToSatisfyReadPreference;
// maxStalenessSeconds under 90 is refused; and with the primary and one
// secondary killed (no primary can be elected), primaryPreferred reads
// are served by the remaining secondary.
func TestReadPreferenceTags(t *testing.T) {
	sets := startSets(t, []cluster.Spec{
		{Name: "cfg", ExtraArgs: []string{"--configsvr"}},
		{Name: "rp", Data: 3, ExtraArgs: []string{"--shardsvr"}},
	})
	cfg, sh := sets[0], sets[1]
	router := harness.StartRouter(t, "cfg/"+cfg.Members()[0].Host)
	cl, _ := connectRouter(t, &topo{cfg: cfg, router: router})
	must(t, cl.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(sh)}}).Err(), "addShard")
	tagMembers(t, sh)

	coll := cl.Database("rpdb").Collection("c", options.Collection().SetWriteConcern(&writeconcern.WriteConcern{W: 3}))
	docs := make([]any, rpDocs)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}}
	}
	_, err := coll.InsertMany(ctxT(t), docs)
	must(t, err, "insert w:3")
	prim, err := sh.Primary(ctxT(t))
	must(t, err, "primary of rp")
	var secs []*cluster.Member
	for _, m := range sh.Members() {
		if m.Name != prim.Name {
			secs = append(secs, m)
		}
	}
	// The router learns each member's tags from its next hello after the
	// reconfig: wait until it routes by every member's tag (mongos would
	// wait inside the read; relaydb fails at once, TODO(#14) in readpref.go).
	for _, m := range secs {
		waitTagsKnown(t, cl, "secondary", m.Name)
	}
	waitTagsKnown(t, cl, "nearest", prim.Name)

	t.Run("tags route reads", func(t *testing.T) {
		for _, target := range append(secs, prim) {
			mode := "secondary"
			if target == prim {
				mode = "nearest" // the primary is among nearest's members
			}
			rp := bson.D{{Key: "mode", Value: mode}, {Key: "tags", Value: bson.A{bson.D{{Key: "name", Value: "none"}}, bson.D{{Key: "name", Value: target.Name}}}}}
			checkServedBy(t, sh, target, false, func() {
				for range 10 {
					wantDocs(t, fmt.Sprintf("find %s on %s", mode, target.Name))(runFind(cl, rp))
					wantDocs(t, fmt.Sprintf("aggregate %s on %s", mode, target.Name))(runAggregate(cl, rp))
				}
			})
		}
	})

	t.Run("cursor stays on the tagged member", func(t *testing.T) {
		target := secs[1]
		rc := cl.Database("rpdb", options.Database().SetReadPreference(
			readpref.Secondary(readpref.WithTags("name", target.Name)))).Collection("c")
		checkServedBy(t, sh, target, true, func() {
			for range 10 {
				cur, err := rc.Find(ctxT(t), bson.D{}, options.Find().SetBatchSize(2))
				must(t, err, "find")
				var got []bson.M
				must(t, cur.All(ctxT(t), &got), "iterate")
				if len(got) != rpDocs {
					t.Fatalf("read %d documents, want %d", len(got), rpDocs)
				}
			}
		})
	})

	t.Run("sharded collection", func(t *testing.T) {
		admin := cl.Database("admin")
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "enableSharding", Value: "rpdb"}}).Err(), "enableSharding")
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "rpdb.s"}, {Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}}).Err(), "shardCollection")
		_, err := cl.Database("rpdb").Collection("s", options.Collection().SetWriteConcern(&writeconcern.WriteConcern{W: 3})).InsertMany(ctxT(t), docs)
		must(t, err, "insert w:3 into the sharded collection")
		target := secs[0]
		rp := bson.D{{Key: "mode", Value: "secondaryPreferred"}, {Key: "tags", Value: bson.A{bson.D{{Key: "name", Value: target.Name}}}}}
		checkServedBy(t, sh, target, false, func() {
			for range 10 {
				wantDocs(t, "find on the sharded collection")(runFindIn(cl, "s", rp))
			}
		})
	})

	t.Run("refusals", func(t *testing.T) {
		none := bson.D{{Key: "mode", Value: "secondary"}, {Key: "tags", Value: bson.A{bson.D{{Key: "name", Value: "none"}}}}}
		want := `Could not find host matching read preference { mode: "secondary", tags: [ { name: "none" } ] } for set rp`
		for what, run := range map[string]func(bson.D) error{"find": func(rp bson.D) error { _, err := runFind(cl, rp); return err },
			"aggregate": func(rp bson.D) error { _, err := runAggregate(cl, rp); return err }} {
			checkCodeMsg(t, run(none), 133, want)
			stale := bson.D{{Key: "mode", Value: "secondary"}, {Key: "maxStalenessSeconds", Value: int32(30)}}
			checkCodeMsg(t, run(stale), 160, "maxStalenessSeconds value can not be less than 90")
			ok := bson.D{{Key: "mode", Value: "secondary"}, {Key: "maxStalenessSeconds", Value: int32(90)}}
			if err := run(ok); err != nil {
				t.Fatalf("%s with maxStalenessSeconds 90: %v", what, err)
			}
		}
	})

	t.Run("primaryPreferred without a primary", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := sh.Kill(ctx, secs[0].Name)
		must(t, err, "kill %s", secs[0].Name)
		_, err = sh.Kill(ctx, prim.Name)
		must(t, err, "kill the primary %s", prim.Name)
		rp := bson.D{{Key: "mode", Value: "primaryPreferred"}}
		checkServedBy(t, sh, secs[1], false, func() {
			for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
				wantDocs(t, "find primaryPreferred")(runFind(cl, rp))
				wantDocs(t, "aggregate primaryPreferred")(runAggregate(cl, rp))
			}
		})
		if h, err := sh.Hello(ctx, secs[1]); err != nil || h.IsWritablePrimary || h.Primary != "" {
			t.Fatalf("hello of the remaining member: %+v, %v; want no primary (else the reads did not test its absence)", h, err)
		}
	})
}

// tagMembers gives every member of c the tag {name: <member name>}.
func tagMembers(t *testing.T, c *cluster.Cluster) {
	t.Helper()
	prim, err := c.Primary(ctxT(t))
	must(t, err, "primary")
	var got struct {
		Config bson.D `bson:"config"`
	}
	must(t, c.RunAdmin(ctxT(t), prim, bson.D{{Key: "replSetGetConfig", Value: 1}}, &got), "replSetGetConfig")
	byHost := map[string]string{}
	for _, m := range c.Members() {
		byHost[m.Host] = m.Name
	}
	conf := setField(got.Config, "version", func(v any) any { n, _ := v.(int32); return n + 1 })
	conf = setField(conf, "members", func(v any) any {
		arr, _ := v.(bson.A)
		out := bson.A{}
		for _, e := range arr {
			m, _ := e.(bson.D)
			host, _ := fieldOf(m, "host").(string)
			out = append(out, setField(m, "tags", func(any) any { return bson.D{{Key: "name", Value: byHost[host]}} }))
		}
		return out
	})
	must(t, c.RunAdmin(ctxT(t), prim, bson.D{{Key: "replSetReconfig", Value: conf}}, nil), "replSetReconfig with tags")
}

func fieldOf(d bson.D, key string) any {
	for _, e := range d {
		if e.Key == key {
			return e.Value
		}
	}
	return nil
}

// setField returns d with key set to f(its old value), appended if absent.
func setField(d bson.D, key string, f func(any) any) bson.D {
	out := make(bson.D, 0, len(d)+1)
	found := false
	for _, e := range d {
		if e.Key == key {
			e.Value, found = f(e.Value), true
		}
		out = append(out, e)
	}
	if !found {
		out = append(out, bson.E{Key: key, Value: f(nil)})
	}
	return out
}

// waitTagsKnown waits (bounded) until the router's monitors know the
// tags: a read tagged for name succeeds.
func waitTagsKnown(t *testing.T, cl *mongo.Client, mode, name string) {
	t.Helper()
	rp := bson.D{{Key: "mode", Value: mode}, {Key: "tags", Value: bson.A{bson.D{{Key: "name", Value: name}}}}}
	var err error
	for end := time.Now().Add(25 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if _, err = runFind(cl, rp); err == nil {
			return
		}
	}
	t.Fatalf("the router never routed a read tagged %s: %v", name, err)
}

func runFind(cl *mongo.Client, rp bson.D) (int, error) { return runFindIn(cl, "c", rp) }

func runFindIn(cl *mongo.Client, coll string, rp bson.D) (int, error) {
	return runRead(cl, bson.D{{Key: "find", Value: coll}, {Key: "$readPreference", Value: rp}})
}

func runAggregate(cl *mongo.Client, rp bson.D) (int, error) {
	return runRead(cl, bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{}},
		{Key: "cursor", Value: bson.D{}}, {Key: "$readPreference", Value: rp}})
}

// runRead runs a read command through the router with the
// $readPreference in its body and counts its first batch.
func runRead(cl *mongo.Client, cmd bson.D) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out struct {
		Cursor struct {
			FirstBatch []bson.Raw `bson:"firstBatch"`
		} `bson:"cursor"`
	}
	err := cl.Database("rpdb").RunCommand(ctx, cmd).Decode(&out)
	return len(out.Cursor.FirstBatch), err
}

// wantDocs returns a check that a read returned all rpDocs documents.
func wantDocs(t *testing.T, what string) func(int, error) {
	return func(n int, err error) {
		t.Helper()
		if err != nil || n != rpDocs {
			t.Fatalf("%s: %d documents, %v; want %d", what, n, err, rpDocs)
		}
	}
}

// checkCodeMsg fails t unless err is a command error with code whose
// message contains msg.
func checkCodeMsg(t *testing.T, err error, code int32, msg string) {
	t.Helper()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != code || !strings.Contains(ce.Message, msg) {
		t.Fatalf("got %v, want code %d with %q", err, code, msg)
	}
}

// opCounts is a member's opcounters query (find, aggregate) and getmore.
func opCounts(t *testing.T, c *cluster.Cluster, m *cluster.Member) (query, getMore int64) {
	t.Helper()
	var ss struct {
		Opcounters struct {
			Query   int64 `bson:"query"`
			GetMore int64 `bson:"getmore"`
		} `bson:"opcounters"`
	}
	must(t, c.RunAdmin(ctxT(t), m, bson.D{{Key: "serverStatus", Value: 1}}, &ss), "serverStatus of %s", m.Name)
	return ss.Opcounters.Query, ss.Opcounters.GetMore
}

// checkServedBy runs reads and checks that target's query counter grew by
// at least 10 (and its getmore counter too when getMores is set) and no
// other live member's query counter by more than 3 (replication's own
// finds; getmore counters also count oplog tailing, so only the target's
// is read): reads spread over two members would give another ~half.
func checkServedBy(t *testing.T, c *cluster.Cluster, target *cluster.Member, getMores bool, reads func()) {
	t.Helper()
	type counts struct{ query, getMore int64 }
	before := map[string]counts{}
	for _, m := range c.Members() {
		if c.Alive(m) {
			q, g := opCounts(t, c, m)
			before[m.Name] = counts{q, g}
		}
	}
	reads()
	for _, m := range c.Members() {
		b, ok := before[m.Name]
		if !ok {
			continue
		}
		q, g := opCounts(t, c, m)
		switch {
		case m == target && q-b.query < 10:
			t.Errorf("%s (the target) served %d reads, want at least 10", m.Name, q-b.query)
		case m == target && getMores && g-b.getMore < 10:
			t.Errorf("%s (the target) served %d getMores, want at least 10", m.Name, g-b.getMore)
		case m != target && q-b.query > 3:
			t.Errorf("%s served %d reads meant for %s", m.Name, q-b.query, target.Name)
		}
	}
}

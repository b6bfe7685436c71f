package repl

import (
	"context"
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/cluster"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

func collWC(cl *mongo.Client, wc *writeconcern.WriteConcern) *mongo.Collection {
	return cl.Database("repl_e").Collection("wc", options.Collection().SetWriteConcern(wc))
}

// wcInsert sends insert {_id: id} with writeConcern {w, wtimeout} straight
// to the primary (the v2 driver has no wtimeout option) and returns the
// reply's writeConcernError (nil if none) and how long it took.
func wcInsert(t *testing.T, p *cluster.Member, id string, w any, wtimeoutMS int32) (bson.Raw, time.Duration) {
	t.Helper()
	cmd := bson.D{{Key: "insert", Value: "wc"},
		{Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: id}}}},
		{Key: "writeConcern", Value: bson.D{{Key: "w", Value: w}, {Key: "wtimeout", Value: wtimeoutMS}}},
		{Key: "$db", Value: "repl_e"}}
	start := time.Now()
	r, err := rawCommand(p.Host, cmd)
	took := time.Since(start)
	if err != nil {
		t.Fatalf("insert %s w:%v: %v", id, w, err)
	}
	if ok, code, _ := replyCode(r); ok != 1 {
		t.Fatalf("insert %s w:%v: ok=%v code=%d, want ok=1 (a write-concern failure is reported in writeConcernError); reply %v", id, w, ok, code, r)
	}
	v, err := r.LookupErr("writeConcernError")
	if err != nil {
		return nil, took
	}
	return v.Document(), took
}

// wceCode is a writeConcernError's code and codeName.
func wceCode(wce bson.Raw) (int32, string) {
	if wce == nil {
		return 0, ""
	}
	c, _ := wce.Lookup("code").Int32OK()
	n, _ := wce.Lookup("codeName").StringValueOK()
	return c, n
}

// TestWriteConcernNumbers: w:3 on a healthy 3-member set is satisfied;
// w:4 cannot be (more than the data-bearing members) and MongoDB answers
// at once with writeConcernError UnsatisfiableWriteConcern (100), the
// write itself applied.
func TestWriteConcernNumbers(t *testing.T) {
	c := sharedSet(t)
	p := primary(t, c, 10*time.Second)
	if wce, _ := wcInsert(t, p, "w3", int32(3), 10000); wce != nil {
		t.Fatalf("insert w:3 on 3 healthy members: writeConcernError %v, want none", wce)
	}
	wce, took := wcInsert(t, p, "w4", int32(4), 2000)
	if code, name := wceCode(wce); code != 100 || name != "UnsatisfiableWriteConcern" {
		t.Errorf("insert w:4 wtimeout 2000 on 3 members: writeConcernError %v, want code 100 codeName UnsatisfiableWriteConcern", wce)
	}
	t.Logf("w:4 answered in %v: %v", took.Round(time.Millisecond), wce)
	ctx, cancel := ctxT(10 * time.Second)
	defer cancel()
	n, err := direct(t, c, p).Database("repl_e").Collection("wc").CountDocuments(ctx, bson.D{{Key: "_id", Value: "w4"}})
	if err != nil || n != 1 {
		t.Fatalf("the w:4 insert itself: count %d err %v, want it applied on the primary (count 1)", n, err)
	}
}

// TestWriteConcernTimeout: with one of three members down, w:3 with
// wtimeout fails with writeConcernError WriteConcernFailed (64) and errInfo
// {wtimeout: true} after about wtimeout, while w:"majority" is satisfied.
func TestWriteConcernTimeout(t *testing.T) {
	c := upSet(t, cluster.Spec{Data: 3})
	p := primary(t, c, 10*time.Second)
	down := secondaries(c, p)[1]
	if _, err := c.Kill(context.Background(), down.Name); err != nil {
		t.Fatalf("kill %s: %v", down.Name, err)
	}
	cl := connectSet(t, c)
	ctx, cancel := ctxT(20 * time.Second)
	defer cancel()
	if _, err := collWC(cl, writeconcern.Majority()).InsertOne(ctx, bson.D{{Key: "_id", Value: "maj"}}); err != nil {
		t.Fatalf("insert w:majority with 2 of 3 up: %v", err)
	}
	wce, took := wcInsert(t, p, "w3", int32(3), 1000)
	if code, name := wceCode(wce); code != 64 || name != "WriteConcernFailed" {
		t.Fatalf("insert w:3 wtimeout 1000 with %s down: writeConcernError %v, want code 64 codeName WriteConcernFailed", down.Name, wce)
	}
	if v, err := wce.LookupErr("errInfo", "wtimeout"); err != nil || !isTrue(v) {
		t.Errorf("writeConcernError %v, want errInfo {wtimeout: true}", wce)
	}
	if took < 900*time.Millisecond || took > 5*time.Second {
		t.Errorf("w:3 wtimeout 1000 returned after %v, want about 1 s", took)
	}
}

func isTrue(v bson.RawValue) bool {
	b, ok := v.BooleanOK()
	return ok && b
}

package repl

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

func TestInitiateElectsOnePrimary(t *testing.T) {
	cl := newCluster(t, 3)
	n0 := cl.node(cl.hosts[0])
	if _, err := runCommand(n0, context.Background(), "replSetInitiate", bson.D{{Key: "replSetInitiate", Value: cl.initiateDoc()}}); err != nil {
		t.Fatal(err)
	}
	_, err := runCommand(n0, context.Background(), "replSetInitiate", bson.D{{Key: "replSetInitiate", Value: cl.initiateDoc()}})
	if me := mongoerr.From(err); me.Code != codeAlreadyInitialized {
		t.Fatalf("second initiate: %v", err)
	}
	p := cl.waitPrimary(5*time.Second, "")
	// Every member learned the config through heartbeats.
	for _, h := range cl.hosts {
		s := cl.node(h).load()
		if !s.hasConfig || s.cfg.Version != 1 || len(s.cfg.Members) != 3 {
			t.Fatalf("%s: config not learned: %+v", h, s.cfg)
		}
	}
	hello := cl.node(p).HelloFields(false)
	if v, _ := lookupBool(hello, "isWritablePrimary"); !v {
		t.Fatalf("primary hello: %v", hello)
	}
	if me, _ := lookupString(hello, "me"); me != p {
		t.Fatalf("hello me = %q, want %q", me, p)
	}
	if err := cl.node(p).CheckWrite("app"); err != nil {
		t.Fatalf("primary CheckWrite: %v", err)
	}
	for _, h := range cl.hosts {
		if h == p {
			continue
		}
		err := cl.node(h).CheckWrite("app")
		if me := mongoerr.From(err); me.Code != mongoerr.NotWritablePrimary {
			t.Fatalf("%s CheckWrite: %v", h, err)
		}
		if err := cl.node(h).CheckWrite("local"); err != nil {
			t.Fatalf("local must be writable: %v", err)
		}
	}
	st, err := runCommand(cl.node(p), context.Background(), "replSetGetStatus", bson.D{{Key: "replSetGetStatus", Value: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if ms := lookupInt(st, "myState"); ms != int64(topology.StatePrimary) {
		t.Fatalf("myState %d", ms)
	}
}

func lookupBool(d bson.D, k string) (bool, bool) {
	for _, e := range d {
		if e.Key == k {
			b, ok := e.Value.(bool)
			return b, ok
		}
	}
	return false, false
}

func TestFailoverAfterPrimaryCutOff(t *testing.T) {
	cl := newCluster(t, 3)
	if _, err := runCommand(cl.node(cl.hosts[0]), context.Background(), "replSetInitiate",
		bson.D{{Key: "replSetInitiate", Value: cl.initiateDoc()}}); err != nil {
		t.Fatal(err)
	}
	old := cl.waitPrimary(5*time.Second, "")
	oldTerm := cl.node(old).load().term
	cl.setCut(old, true)
	next := cl.waitPrimary(5*time.Second, old)
	if term := cl.node(next).load().term; term <= oldTerm {
		t.Fatalf("new primary term %d, old %d", term, oldTerm)
	}
	// The cut-off primary steps down on its own (no majority in sight).
	deadline := time.Now().Add(3 * time.Second)
	for cl.node(old).load().writable {
		if time.Now().After(deadline) {
			t.Fatal("isolated primary did not step down")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Votes were persisted: each voter's stored vote is for a term it saw.
	for _, h := range cl.hosts {
		v, err := loadVote(cl.cats[h])
		if err != nil {
			t.Fatal(err)
		}
		if v.Term == 0 {
			t.Fatalf("%s: no vote persisted", h)
		}
	}
}

func TestMajorityWaiterResolvesOnPositions(t *testing.T) {
	cl := newCluster(t, 3)
	if _, err := runCommand(cl.node(cl.hosts[0]), context.Background(), "replSetInitiate",
		bson.D{{Key: "replSetInitiate", Value: cl.initiateDoc()}}); err != nil {
		t.Fatal(err)
	}
	p := cl.waitPrimary(5*time.Second, "")
	prim := cl.node(p)
	cat := cl.cats[p]
	coll, _, err := cat.EnsureCollection("app", "c")
	if err != nil {
		t.Fatal(err)
	}
	r, err := cat.Insert(coll, bson.D{{Key: "_id", Value: 1}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- prim.WaitWriteConcern(context.Background(), r.TS, "majority", false) }()
	select {
	case err := <-done:
		t.Fatalf("majority satisfied before any secondary had the write: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	// w:1 is satisfied by the primary alone.
	if err := prim.WaitWriteConcern(context.Background(), r.TS, int32(1), true); err != nil {
		t.Fatal(err)
	}
	// wtimeout: w:3 cannot be met.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := prim.WaitWriteConcern(ctx, r.TS, int32(3), false); mongoerr.From(err).Code != mongoerr.WriteConcernFailed {
		t.Fatalf("w:3 with timeout: %v", err)
	}
	other := cl.hosts[0]
	if other == p {
		other = cl.hosts[1]
	}
	s := prim.load()
	op := topology.OpTime{TS: r.TS, Term: s.term}
	id := cl.node(other).load().selfID
	upd := bson.D{{Key: "replSetUpdatePosition", Value: 1}, {Key: "optimes", Value: bson.A{
		positionDoc(id, s.cfg.Version, time.Now(), position{Written: op, Applied: op, Durable: op})}},
		{Key: "$replData", Value: bson.D{{Key: "term", Value: s.term}}}}
	if _, err := runCommand(prim, context.Background(), "replSetUpdatePosition", upd); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("majority waiter not woken by the position update")
	}
}

func TestVotePersistedAcrossRestart(t *testing.T) {
	cl := newCluster(t, 1)
	h := cl.hosts[0]
	c := cl.node(h)
	v := topology.PersistVote{Term: 7, Candidate: 0}
	if err := storeVote(context.Background(), cl.cats[h], v, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := runCommand(c, context.Background(), "replSetInitiate", bson.D{{Key: "replSetInitiate", Value: nil}}); err != nil {
		t.Fatal(err)
	}
	cl.waitPrimary(3*time.Second, "")
	term := c.load().term
	if term < 8 {
		t.Fatalf("term %d after a persisted vote in term 7", term)
	}
	c.Stop()
	c2 := cl.start(h, 99)
	s := c2.load()
	if !s.hasConfig || s.term < term {
		t.Fatalf("after restart: config %v term %d (was %d)", s.hasConfig, s.term, term)
	}
	got, err := loadVote(cl.cats[h])
	if err != nil || got.Term != term || got.Candidate != 0 {
		t.Fatalf("persisted vote %+v %v, want term %d", got, err, term)
	}
	cl.waitPrimary(3*time.Second, "")
	if c2.load().term <= term {
		t.Fatalf("re-election did not move the term on")
	}
}

func TestNotInitialized(t *testing.T) {
	cl := newCluster(t, 1)
	c := cl.node(cl.hosts[0])
	_, err := runCommand(c, context.Background(), "replSetGetStatus", bson.D{{Key: "replSetGetStatus", Value: 1}})
	var me *mongoerr.Error
	if !errors.As(err, &me) || me.Code != mongoerr.NotYetInitialized {
		t.Fatalf("status before initiate: %v", err)
	}
	hello := c.HelloFields(false)
	if v, _ := lookupBool(hello, "isreplicaset"); !v {
		t.Fatalf("hello before initiate: %v", hello)
	}
	if err := c.CheckWrite("app"); mongoerr.From(err).Code != mongoerr.NotWritablePrimary {
		t.Fatalf("write before initiate: %v", err)
	}
}

package router

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/netclient"
	"github.com/relaydb/relaydb/internal/wire"
)

// fakeMember answers OP_MSG commands with fn; fn returning nil drops the
// connection (a network failure after the request was sent).
type fakeMember struct {
	ln    net.Listener
	mu    sync.Mutex
	fn    func(cmd bson.D) bson.D
	calls atomic.Int32 // non-hello commands received
}

func startMember(t *testing.T, fn func(cmd bson.D) bson.D) *fakeMember {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &fakeMember{ln: ln, fn: fn}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go m.serve(nc)
		}
	}()
	return m
}

func (m *fakeMember) addr() string { return m.ln.Addr().String() }

func (m *fakeMember) set(fn func(cmd bson.D) bson.D) {
	m.mu.Lock()
	m.fn = fn
	m.mu.Unlock()
}

func (m *fakeMember) serve(nc net.Conn) {
	defer nc.Close()
	for {
		h, body, err := wire.ReadMessage(nc, 0)
		if err != nil {
			return
		}
		msg, err := wire.ParseMsg(body)
		if err != nil {
			return
		}
		cmd, _ := bsonx.Decode(msg.Body)
		if cmd[0].Key != "hello" {
			m.calls.Add(1)
		}
		m.mu.Lock()
		fn := m.fn
		m.mu.Unlock()
		reply := fn(cmd)
		if reply == nil {
			return
		}
		raw, _ := bsonx.Encode(reply)
		if _, err := nc.Write(wire.AppendMsg(nil, 1, h.RequestID, 0, raw)); err != nil {
			return
		}
	}
}

func ok(kv ...bson.E) bson.D { return append(bson.D(kv), bson.E{Key: "ok", Value: 1.0}) }

// member answers hello as a member of set "rs" (primary or secondary,
// listing hosts) and other commands with {ok: 1, served: name}.
func member(name string, primary *atomic.Bool, hosts *[]string) func(bson.D) bson.D {
	return func(cmd bson.D) bson.D {
		if cmd[0].Key == "hello" {
			hs := bson.A{}
			for _, h := range *hosts {
				hs = append(hs, h)
			}
			return ok(bson.E{Key: "isWritablePrimary", Value: primary.Load()}, bson.E{Key: "setName", Value: "rs"}, bson.E{Key: "hosts", Value: hs})
		}
		if !primary.Load() {
			return bson.D{{Key: "ok", Value: 0.0}, {Key: "code", Value: int32(10107)}, {Key: "errmsg", Value: "not primary"}}
		}
		return ok(bson.E{Key: "served", Value: name})
	}
}

func TestReplSetDiscoveryAndFailover(t *testing.T) {
	var aPrimary, bPrimary atomic.Bool
	var hosts []string
	a := startMember(t, nil)
	b := startMember(t, nil)
	hosts = []string{a.addr(), b.addr()}
	a.set(member("a", &aPrimary, &hosts))
	b.set(member("b", &bPrimary, &hosts))
	bPrimary.Store(true)

	pool := netclient.NewPool(netclient.Options{})
	defer pool.Close()
	s := newReplSet("rs", []string{a.addr()}, pool) // only a is a seed: b is learned from hello
	ctx := context.Background()
	reply, err := s.Run(ctx, "db", bson.D{{Key: "insert", Value: "c"}}, false)
	if err != nil || mustGet(reply, "served") != "b" {
		t.Fatalf("first run: %v %v", reply, err)
	}
	// b steps down, a is elected: NotWritablePrimary means not executed, so
	// even a non-idempotent command is resent to the new primary.
	bPrimary.Store(false)
	aPrimary.Store(true)
	reply, err = s.Run(ctx, "db", bson.D{{Key: "insert", Value: "c"}}, false)
	if err != nil || mustGet(reply, "served") != "a" {
		t.Fatalf("after failover: %v %v", reply, err)
	}
}

func TestReplSetNetworkFailureAfterSend(t *testing.T) {
	var primary atomic.Bool
	primary.Store(true)
	var hosts []string
	var drop atomic.Bool
	m := startMember(t, nil)
	hosts = []string{m.addr()}
	inner := member("m", &primary, &hosts)
	m.set(func(cmd bson.D) bson.D {
		if cmd[0].Key != "hello" && drop.Swap(false) {
			return nil // the request arrived; the connection dies before the reply
		}
		return inner(cmd)
	})
	pool := netclient.NewPool(netclient.Options{})
	defer pool.Close()
	s := newReplSet("rs", hosts, pool)
	ctx := context.Background()

	drop.Store(true)
	before := m.calls.Load()
	_, err := s.Run(ctx, "db", bson.D{{Key: "update", Value: "c"}}, false)
	if !mongoerr.Is(err, mongoerr.HostUnreachable) || m.calls.Load()-before != 1 {
		t.Fatalf("non-idempotent: err %v after %d sends, want HostUnreachable after 1", err, m.calls.Load()-before)
	}
	drop.Store(true)
	before = m.calls.Load()
	reply, err := s.Run(ctx, "db", bson.D{{Key: "find", Value: "c"}}, true)
	if err != nil || mustGet(reply, "served") != "m" || m.calls.Load()-before != 2 {
		t.Fatalf("idempotent: %v %v after %d sends, want success after 2", reply, err, m.calls.Load()-before)
	}
	// An ok:0 reply that is not about the primary is returned with the reply.
	m.set(func(cmd bson.D) bson.D {
		if cmd[0].Key == "hello" {
			return inner(cmd)
		}
		return bson.D{{Key: "ok", Value: 0.0}, {Key: "code", Value: int32(26)}, {Key: "errmsg", Value: "ns not found"}, {Key: "codeName", Value: "NamespaceNotFound"}}
	})
	reply, err = s.Run(ctx, "db", bson.D{{Key: "drop", Value: "c"}}, false)
	if !mongoerr.Is(err, mongoerr.NamespaceNotFound) || mustGet(reply, "codeName") != "NamespaceNotFound" {
		t.Fatalf("error reply: %v %v", reply, err)
	}
}

func TestReplSetNoPrimary(t *testing.T) {
	var primary atomic.Bool // never primary
	var hosts []string
	m := startMember(t, nil)
	hosts = []string{m.addr()}
	m.set(member("m", &primary, &hosts))
	pool := netclient.NewPool(netclient.Options{})
	defer pool.Close()
	s := newReplSet("rs", hosts, pool)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := s.Run(ctx, "db", bson.D{{Key: "find", Value: "c"}}, true)
	var me *mongoerr.Error
	if !errors.As(err, &me) || me.Code != mongoerr.FailedToSatisfyReadPreference {
		t.Fatalf("no primary: %v, want FailedToSatisfyReadPreference", err)
	}
	// A member of another set is never taken for the primary.
	other := newReplSet("elsewhere", hosts, pool)
	primary.Store(true)
	if _, err := other.Run(ctx, "db", bson.D{{Key: "find", Value: "c"}}, true); err == nil {
		t.Fatal("a member of rs served set elsewhere")
	}
}

func TestRunSelected(t *testing.T) {
	var primaryA, never atomic.Bool
	primaryA.Store(true)
	var hosts []string
	a := startMember(t, nil)
	b := startMember(t, nil)
	hosts = []string{a.addr(), b.addr()}
	a.set(member("a", &primaryA, &hosts))
	secondaryB := func(cmd bson.D) bson.D {
		if cmd[0].Key == "hello" {
			hs := bson.A{a.addr(), b.addr()}
			return ok(bson.E{Key: "isWritablePrimary", Value: false}, bson.E{Key: "secondary", Value: true},
				bson.E{Key: "setName", Value: "rs"}, bson.E{Key: "hosts", Value: hs})
		}
		return ok(bson.E{Key: "served", Value: "b"})
	}
	b.set(secondaryB)
	pool := netclient.NewPool(netclient.Options{})
	defer pool.Close()
	ctx := context.Background()
	s := newReplSet("rs", []string{a.addr()}, pool)
	reply, host, err := s.RunSelected(ctx, "db", bson.D{{Key: "find", Value: "c"}}, netclient.ReadPref{Mode: "secondary"})
	if err != nil || host != b.addr() || mustGet(reply, "served") != "b" {
		t.Fatalf("secondary read: %v from %s, %v", reply, host, err)
	}
	// No secondary: mode secondary fails, secondaryPreferred reads the primary.
	b.set(member("b", &never, &hosts)) // now a member answering hello as neither
	s = newReplSet("rs", []string{a.addr(), b.addr()}, pool)
	if _, _, err := s.RunSelected(ctx, "db", bson.D{{Key: "find", Value: "c"}}, netclient.ReadPref{Mode: "secondary"}); !mongoerr.Is(err, mongoerr.FailedToSatisfyReadPreference) {
		t.Fatalf("mode secondary without one: %v", err)
	}
	reply, host, err = s.RunSelected(ctx, "db", bson.D{{Key: "find", Value: "c"}}, netclient.ReadPref{Mode: "secondaryPreferred"})
	if err != nil || host != a.addr() || mustGet(reply, "served") != "a" {
		t.Fatalf("secondaryPreferred without a secondary: %v from %s, %v", reply, host, err)
	}
}

// TestConnPoolStats: the config set as its monitor sees it, before and
// after the router used it.
func TestConnPoolStats(t *testing.T) {
	var primary atomic.Bool
	primary.Store(true)
	var hosts []string
	m := startMember(t, nil)
	hosts = []string{m.addr()}
	m.set(member("m", &primary, &hosts))
	r, err := New(Options{ConfigDB: "rs/" + m.addr(), Version: "7.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := r.cfg.primary(ctx); err != nil {
		t.Fatal(err)
	}
	reply, err := connPoolStats(&call{r: r, ctx: ctx})
	if err != nil {
		t.Fatal(err)
	}
	rs := mustGet(reply, "replicaSets").(bson.D)
	set := mustGet(rs, "rs").(bson.D)
	list := mustGet(set, "hosts").(bson.A)
	if len(list) != 1 {
		t.Fatalf("hosts = %v", list)
	}
	h := list[0].(bson.D)
	if mustGet(h, "addr") != m.addr() || mustGet(h, "ok") != true || mustGet(h, "ismaster") != true || mustGet(h, "secondary") != false {
		t.Fatalf("member = %v", h)
	}
}

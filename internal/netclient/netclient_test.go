package netclient

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// fakeServer answers OP_MSG commands: ping -> ok, fail -> ok:0 code 10107
// with a label, close -> drops the connection, sleep -> never answers.
type fakeServer struct {
	ln    net.Listener
	conns atomic.Int32
}

func startFake(t *testing.T) *fakeServer {
	t.Helper()
	s := &fakeServer{}
	s.ln = listenOpMsg(t, func() opMsgHandler {
		s.conns.Add(1)
		return s.answer
	})
	return s
}

func (s *fakeServer) addr() string { return s.ln.Addr().String() }

func (s *fakeServer) answer(cmd bson.D) (bson.D, bool) {
	switch cmd[0].Key {
	case "ping":
		db, _ := bsonx.Get(cmd, "$db")
		return bson.D{{Key: "db", Value: db}, {Key: "ok", Value: 1.0}}, true
	case "fail":
		return bson.D{{Key: "ok", Value: 0.0}, {Key: "errmsg", Value: "not primary"},
			{Key: "code", Value: int32(10107)}, {Key: "errorLabels", Value: bson.A{"RetryableWriteError"}}}, true
	case "close":
		return nil, false
	case "sleep":
		time.Sleep(2 * time.Second)
		return nil, false
	}
	return nil, true
}

func TestPoolRun(t *testing.T) {
	s := startFake(t)
	p := NewPool(Options{})
	defer p.Close()
	ctx := context.Background()
	tests := []struct {
		cmd      string
		wantCode mongoerr.Code
		network  bool
	}{
		{cmd: "ping"},
		{cmd: "fail", wantCode: mongoerr.NotWritablePrimary},
		{cmd: "ping"},
		{cmd: "close", network: true},
		{cmd: "ping"},
	}
	for _, tt := range tests {
		reply, err := p.Run(ctx, s.addr(), "admin", bson.D{{Key: tt.cmd, Value: 1}})
		switch {
		case tt.network:
			if err == nil || !IsNetworkError(err) {
				t.Fatalf("%s: want network error, got %v", tt.cmd, err)
			}
		case tt.wantCode != 0:
			var me *mongoerr.Error
			if !errors.As(err, &me) || me.Code != tt.wantCode || len(me.Labels) != 1 {
				t.Fatalf("%s: got %v", tt.cmd, err)
			}
		default:
			if err != nil {
				t.Fatalf("%s: %v", tt.cmd, err)
			}
			if db, _ := bsonx.Get(reply, "db"); db != "admin" {
				t.Fatalf("%s: $db not sent: %v", tt.cmd, reply)
			}
		}
	}
	// ping, fail, ping share one connection; close broke it; ping re-dials.
	if n := s.conns.Load(); n != 2 {
		t.Fatalf("connections = %d, want 2 (pooled)", n)
	}
}

func TestRunHonoursDeadline(t *testing.T) {
	s := startFake(t)
	p := NewPool(Options{})
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := p.Run(ctx, s.addr(), "admin", bson.D{{Key: "sleep", Value: 1}})
	if err == nil || !IsNetworkError(err) {
		t.Fatalf("want timeout, got %v", err)
	}
	if el := time.Since(start); el > time.Second {
		t.Fatalf("deadline ignored: took %v", el)
	}
}

func TestLatencyAndDialFailure(t *testing.T) {
	s := startFake(t)
	p := NewPool(Options{Latency: 50 * time.Millisecond})
	defer p.Close()
	c, err := p.Dial(context.Background(), s.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	if _, err := c.Run(context.Background(), "admin", bson.D{{Key: "ping", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 50*time.Millisecond {
		t.Fatalf("latency not applied: %v", el)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := ln.Addr().String()
	ln.Close()
	if _, err := p.Run(context.Background(), dead, "admin", bson.D{{Key: "ping", Value: 1}}); err == nil {
		t.Fatal("dial to closed port succeeded")
	}
}

func TestLatencyPerDestination(t *testing.T) {
	p := NewPool(Options{Latency: time.Millisecond, LatencyTo: map[string]time.Duration{"127.0.0.1:1": 7 * time.Millisecond}})
	if got := p.latencyFor("127.0.0.1:1"); got != 7*time.Millisecond {
		t.Fatalf("latency to overridden host = %v, want 7ms", got)
	}
	if got := p.latencyFor("127.0.0.1:2"); got != time.Millisecond {
		t.Fatalf("latency to other host = %v, want the default 1ms", got)
	}
}

// TestCancelInterruptsBlockedRead: a peer that never answers (a silent
// partition) must not hold a caller past its context's cancellation, even
// when the deadline is far away.
func TestCancelInterruptsBlockedRead(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err == nil {
			defer c.Close()
			time.Sleep(5 * time.Second) // read nothing, answer nothing
		}
	}()
	p := NewPool(Options{})
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err = p.Run(ctx, l.Addr().String(), "admin", bson.D{{Key: "ping", Value: 1}})
	if err == nil {
		t.Fatal("Run succeeded against a silent peer")
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("Run returned %v after cancellation, want promptly", took)
	}
}

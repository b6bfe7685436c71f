package server

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/storage"
	"github.com/relaydb/relaydb/internal/wire"
)

// startServer serves an in-memory catalog on 127.0.0.1 and returns its address.
func startServer(t testing.TB, cfg Config) string {
	t.Helper()
	cat, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Addrs = []string{"127.0.0.1:0"}
	s := New(cfg, command.NewDispatcher(exec.New(cat, slog.Default()), command.Info{}, slog.Default()))
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		cat.Close()
	})
	return s.Addr().String()
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func pingMsg(t *testing.T) []byte {
	doc, err := bson.Marshal(bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
	if err != nil {
		t.Fatal(err)
	}
	return wire.AppendMsg(nil, 1, 0, 0, doc)
}

// closedWithin reads from c until the server closes it and returns how
// long that took, failing t if it is still open after d.
func closedWithin(t *testing.T, c net.Conn, d time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	c.SetReadDeadline(start.Add(d))
	_, err := io.Copy(io.Discard, c)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("connection still open after %v", d)
	}
	return time.Since(start)
}

// mustPing sends ping on c and expects a reply.
func mustPing(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write(pingMsg(t)); err != nil {
		t.Fatalf("write ping: %v", err)
	}
	if _, _, err := wire.ReadMessage(c, 0); err != nil {
		t.Fatalf("read ping reply: %v", err)
	}
}

// A message begun must complete within MessageTimeout; a connection idle
// between messages stays open (issue #9: half a header was held forever).
func TestStalledMessageIsClosed(t *testing.T) {
	const timeout = 200 * time.Millisecond
	addr := startServer(t, Config{MessageTimeout: timeout})
	msg := pingMsg(t)
	stalls := map[string][]byte{"half a header": msg[:8], "header and part of the body": msg[:wire.HeaderLen+3]}
	idle := dial(t, addr)
	for name, part := range stalls {
		c := dial(t, addr)
		if _, err := c.Write(part); err != nil {
			t.Fatal(err)
		}
		took := closedWithin(t, c, 10*timeout)
		t.Logf("%s: closed after %v", name, took)
		if took < timeout/2 {
			t.Fatalf("%s: closed after %v, before the %v timeout", name, took, timeout)
		}
	}
	mustPing(t, idle) // idle for longer than the timeout, still served
}

// A message that arrives in pieces within the timeout is served, and the
// deadline does not outlive it.
func TestSlowMessageWithinTimeout(t *testing.T) {
	const timeout = 400 * time.Millisecond
	addr := startServer(t, Config{MessageTimeout: timeout})
	c := dial(t, addr)
	msg := pingMsg(t)
	for _, part := range [][]byte{msg[:5], msg[5:20], msg[20:]} {
		c.Write(part)
		time.Sleep(timeout / 4)
	}
	if _, _, err := wire.ReadMessage(c, 0); err != nil {
		t.Fatalf("reply: %v", err)
	}
	time.Sleep(timeout * 3 / 2) // idle past the deadline set for that message
	mustPing(t, c)
}

// Issue #9's message (36 bytes claiming 48 MB) closes its connection, as
// MongoDB does for a bad OP_COMPRESSED, and the server keeps serving.
func TestCompressedClaimClosesConnection(t *testing.T) {
	addr := startServer(t, Config{})
	c := dial(t, addr)
	body := binary.LittleEndian.AppendUint32(nil, uint32(wire.OpMsg))
	body = binary.LittleEndian.AppendUint32(body, uint32(wire.DefaultMaxMessageSize-wire.HeaderLen))
	body = append(body, wire.CompressorZlib, 0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01)
	h := wire.Header{MessageLength: int32(wire.HeaderLen + len(body)), RequestID: 7, OpCode: wire.OpCompressed}
	if _, err := c.Write(append(wire.AppendHeader(nil, h), body...)); err != nil {
		t.Fatal(err)
	}
	closedWithin(t, c, 5*time.Second)
	mustPing(t, dial(t, addr))
}

func TestConfigDefaults(t *testing.T) {
	s := New(Config{}, nil)
	if s.cfg.MessageTimeout != DefaultMessageTimeout || s.log == nil {
		t.Fatalf("defaults: %+v", s.cfg)
	}
}

package netclient

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/wire"
)

// streamServer answers the first message of each connection with n
// replies, each answering the previous one (moreToCome on all but the
// last); chain false breaks the chain at the second reply.
func streamServer(t *testing.T, n int, chain bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer nc.Close()
				h, body, err := wire.ReadMessage(nc, 0)
				if err != nil {
					return
				}
				m, _ := wire.ParseMsg(body)
				if m.Flags&wire.ExhaustAllowed == 0 {
					n = 1
				}
				prev := h.RequestID
				for i := 0; i < n; i++ {
					raw, _ := bsonx.Encode(bson.D{{Key: "i", Value: int32(i)}, {Key: "ok", Value: 1.0}})
					flags := wire.MoreToCome
					if i == n-1 {
						flags = 0
					}
					to := prev
					if !chain && i == 1 {
						to = 12345
					}
					id := int32(100 + i)
					if _, err := nc.Write(wire.AppendMsg(nil, id, to, flags, raw)); err != nil {
						return
					}
					prev = id
				}
				time.Sleep(time.Second) // keep the connection open
			}()
		}
	}()
	return ln.Addr().String()
}

func TestExhaustStream(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p := NewPool(Options{})
	defer p.Close()
	c, err := p.Dial(ctx, streamServer(t, 4, true))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.StartExhaust(ctx, "local", bson.D{{Key: "getMore", Value: int64(1)}}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		reply, more, err := c.NextExhaust(ctx)
		if err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
		if got, _ := bsonx.Get(reply, "i"); got != int32(i) || more != (i < 3) {
			t.Fatalf("reply %d: %v more=%v", i, reply, more)
		}
		if i < 3 {
			if _, err := c.Run(ctx, "admin", bson.D{{Key: "ping", Value: 1}}); err == nil || !strings.Contains(err.Error(), "streaming") {
				t.Fatalf("Run during an open stream: %v, want refused", err)
			}
		}
	}
	if _, _, err := c.NextExhaust(ctx); err == nil {
		t.Fatal("NextExhaust after the last reply succeeded")
	}
}

func TestExhaustOutOfSequence(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p := NewPool(Options{})
	defer p.Close()
	c, err := p.Dial(ctx, streamServer(t, 3, false))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.StartExhaust(ctx, "local", bson.D{{Key: "getMore", Value: int64(1)}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.NextExhaust(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.NextExhaust(ctx); err == nil || !strings.Contains(err.Error(), "expected") {
		t.Fatalf("reply answering the wrong message: %v, want an error", err)
	}
	if _, err := c.Run(ctx, "admin", bson.D{{Key: "ping", Value: 1}}); err == nil {
		t.Fatal("connection still usable after a broken stream")
	}
}

// TestExhaustLatencyPipelined: a simulated one-way latency delays the
// request and the streamed replies after the first (replies that arrive
// together are delayed together: about 2x, not 5x; only the lower bound
// is asserted, timings on a shared machine vary).
func TestExhaustLatencyPipelined(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	const lat = 100 * time.Millisecond
	p := NewPool(Options{Latency: lat})
	defer p.Close()
	c, err := p.Dial(ctx, streamServer(t, 5, true))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	if err := c.StartExhaust(ctx, "local", bson.D{{Key: "getMore", Value: int64(1)}}); err != nil {
		t.Fatal(err)
	}
	for more := true; more; {
		if _, more, err = c.NextExhaust(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if el := time.Since(start); el < 2*lat {
		t.Fatalf("5 streamed replies took %v with a %v one-way latency, want at least 2x", el, lat)
	}
}

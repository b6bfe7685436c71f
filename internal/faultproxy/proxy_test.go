package faultproxy

import (
	"bufio"
	"io"
	"net"
	"testing"
	"time"
)

// echoServer echoes every line back until the listener closes.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); _, _ = io.Copy(c, c) }()
		}
	}()
	return ln.Addr().String()
}

func newProxy(t *testing.T) *Proxy {
	t.Helper()
	p, err := New("127.0.0.1:0", echoServer(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// roundTrip writes msg on c and reads a line back within d; it returns
// the line or the error.
func roundTrip(c net.Conn, msg string, d time.Duration) (string, error) {
	_ = c.SetDeadline(time.Now().Add(d))
	if _, err := c.Write([]byte(msg + "\n")); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return "", err
	}
	return line[:len(line)-1], nil
}

func dial(t *testing.T, p *Proxy) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", p.Addr(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

func TestPassForwards(t *testing.T) {
	p := newProxy(t)
	c := dial(t, p)
	for _, msg := range []string{"a", "hello", "third line"} {
		got, err := roundTrip(c, msg, time.Second)
		if err != nil || got != msg {
			t.Fatalf("round trip %q: got %q, %v", msg, got, err)
		}
	}
	if p.Mode() != Pass {
		t.Fatalf("mode %v, want pass", p.Mode())
	}
}

func TestModes(t *testing.T) {
	tests := []struct {
		name string
		set  func(*Proxy)
		// check gets the error of a round trip on a connection opened
		// before (old) and after (new) the mode change.
		wantOld, wantNew string // "ok", "closed", "timeout"
	}{
		{"drop", (*Proxy).Drop, "closed", "closed"},
		{"blackhole", (*Proxy).Blackhole, "timeout", "timeout"},
		{"heal", func(p *Proxy) { p.Blackhole(); p.Heal() }, "closed", "ok"},
		{"drop then heal", func(p *Proxy) { p.Drop(); p.Heal() }, "closed", "ok"},
		{"delay", func(p *Proxy) { p.Delay(20 * time.Millisecond) }, "ok", "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProxy(t)
			old := dial(t, p)
			if _, err := roundTrip(old, "warm", time.Second); err != nil {
				t.Fatalf("before %s: %v", tt.name, err)
			}
			tt.set(p)
			if got := outcome(roundTrip(old, "x", 300*time.Millisecond)); got != tt.wantOld {
				t.Errorf("open connection after %s: %s, want %s", tt.name, got, tt.wantOld)
			}
			if got := outcome(roundTrip(dial(t, p), "y", 300*time.Millisecond)); got != tt.wantNew {
				t.Errorf("new connection after %s: %s, want %s", tt.name, got, tt.wantNew)
			}
		})
	}
}

func outcome(_ string, err error) string {
	switch {
	case err == nil:
		return "ok"
	case isTimeout(err):
		return "timeout"
	default:
		return "closed"
	}
}

func TestDelayShiftsAndKeepsOrder(t *testing.T) {
	p := newProxy(t)
	c := dial(t, p)
	const d = 100 * time.Millisecond
	p.Delay(d)
	start := time.Now()
	_ = c.SetDeadline(time.Now().Add(3 * time.Second))
	for _, s := range []string{"1\n", "2\n", "3\n"} {
		if _, err := c.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	r := bufio.NewReader(c)
	var got string
	for i := 0; i < 3; i++ {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		got += line
	}
	// Both directions are delayed: at least 2d for the round trip.
	if el := time.Since(start); el < 2*d {
		t.Errorf("round trip took %v, want >= %v", el, 2*d)
	}
	if got != "1\n2\n3\n" {
		t.Errorf("got %q, want in order", got)
	}
	p.Delay(0)
	start = time.Now()
	if _, err := roundTrip(c, "fast", time.Second); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > d {
		t.Errorf("after Delay(0) round trip took %v, want < %v", el, d)
	}
}

func TestBlackholeSwallowsForever(t *testing.T) {
	p := newProxy(t)
	c := dial(t, p)
	p.Blackhole()
	_, _ = c.Write([]byte("lost\n"))
	time.Sleep(50 * time.Millisecond)
	p.Heal()
	// The blackholed connection is closed by Heal, never resumed with
	// the swallowed bytes.
	_ = c.SetReadDeadline(time.Now().Add(time.Second))
	buf := make([]byte, 16)
	n, err := c.Read(buf)
	if err == nil || isTimeout(err) {
		t.Fatalf("read after heal: %q, %v; want the connection closed", buf[:n], err)
	}
	if p.Conns() != 0 {
		// forget runs asynchronously after the close.
		deadline := time.Now().Add(time.Second)
		for p.Conns() != 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := p.Conns(); n != 0 {
			t.Errorf("%d connections tracked after heal, want 0", n)
		}
	}
}

func TestCloseStopsEverything(t *testing.T) {
	p := newProxy(t)
	c := dial(t, p)
	if _, err := roundTrip(c, "a", time.Second); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Close did not return within 2s")
	}
	if _, err := net.DialTimeout("tcp", p.Addr(), 200*time.Millisecond); err == nil {
		t.Error("dial after Close succeeded, want refused")
	}
}

func TestTargetDown(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	p, err := New("127.0.0.1:0", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if got := outcome(roundTrip(dial(t, p), "x", time.Second)); got != "closed" {
		t.Errorf("proxy to a dead target: %s, want closed", got)
	}
}

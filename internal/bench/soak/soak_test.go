package soak

import (
	"context"
	"encoding/binary"
	"testing"
	"time"
)

func TestZlibBomb(t *testing.T) {
	b := zlibBomb()
	if len(b) != 37 || int(binary.LittleEndian.Uint32(b)) != 37 {
		t.Fatalf("len %d, messageLength %d; want 37", len(b), binary.LittleEndian.Uint32(b))
	}
	if op, size := binary.LittleEndian.Uint32(b[12:]), binary.LittleEndian.Uint32(b[20:]); op != 2012 || size != 48<<20 || b[24] != 2 {
		t.Fatalf("opCode %d, uncompressedSize %d, compressor %d; want 2012, 48 MiB, zlib", op, size, b[24])
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1GiB": 1 << 30, "512MiB": 512 << 20, "1.5GB": 3 << 29, "4096": 4096} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1GiB", "lots"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) accepted", bad)
		}
	}
}

// TestGate: ops are held during a kill cycle and waitIdle waits for the
// one in progress.
func TestGate(t *testing.T) {
	g := newGate()
	ctx := context.Background()
	if !g.enter(ctx) {
		t.Fatal("enter on an up gate")
	}
	g.beginKill()
	idle := make(chan struct{})
	go func() { g.waitIdle(); close(idle) }()
	select {
	case <-idle:
		t.Fatal("waitIdle returned with an op in progress")
	case <-time.After(20 * time.Millisecond):
	}
	g.exit()
	<-idle
	entered := make(chan bool)
	go func() { entered <- g.enter(ctx) }()
	select {
	case <-entered:
		t.Fatal("enter during a kill cycle")
	case <-time.After(20 * time.Millisecond):
	}
	g.endKill()
	if !<-entered || g.cycle() != 1 {
		t.Fatal("enter after endKill failed or cycle not counted")
	}
	g.exit()
	cctx, cancel := context.WithCancel(ctx)
	g.beginKill()
	cancel()
	if g.enter(cctx) {
		t.Fatal("enter with a cancelled context")
	}
}

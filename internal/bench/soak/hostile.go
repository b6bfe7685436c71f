package soak

import (
	"context"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Hostile connection kinds, in report order.
var hostileKinds = []string{"half-header stall", "zlib bomb (37 B, claims 48 MB)", "random garbage", "open and drop"}

const (
	maxStalls   = 64              // half-header connections held open at once
	stallHold   = 2 * time.Minute // the longest we hold one (the server should close it first)
	hostileWait = 2 * time.Second // how long we read a reply before closing
	dialTimeout = 1 * time.Second
)

// hostile sends one hostile connection every interval to addr().
type hostile struct {
	addr     func() string
	killed   func() bool // a kill cycle is in progress
	interval time.Duration
	r        *rand.Rand // used by run's goroutine only

	sent        [4]atomic.Int64 // by kind
	refused     atomic.Int64    // dials that failed (server down)
	stalls      atomic.Int64    // stalls open now
	stallClosed atomic.Int64    // stalls the server closed while up, before stallHold
	stallKilled atomic.Int64    // stalls ended by a kill
	stallMax    atomic.Int64    // longest a stall was held open, ns
	wg          sync.WaitGroup
}

func (h *hostile) run(ctx context.Context) {
	defer h.wg.Wait()
	t := time.NewTicker(h.interval)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		kind := h.r.IntN(len(hostileKinds))
		if kind == 0 && h.stalls.Load() >= maxStalls {
			kind = 3
		}
		garbage := make([]byte, 1+h.r.IntN(4096))
		for j := range garbage {
			garbage[j] = byte(h.r.UintN(256))
		}
		h.wg.Add(1)
		go func() { defer h.wg.Done(); h.one(ctx, kind, garbage) }()
	}
}

func (h *hostile) one(ctx context.Context, kind int, garbage []byte) {
	c, err := net.DialTimeout("tcp", h.addr(), dialTimeout)
	if err != nil {
		h.refused.Add(1)
		return
	}
	defer c.Close()
	h.sent[kind].Add(1)
	switch kind {
	case 0:
		h.stall(ctx, c)
	case 1:
		_, _ = c.Write(zlibBomb())
		drain(c, hostileWait)
	case 2:
		_, _ = c.Write(garbage)
		drain(c, hostileWait)
	}
}

// stall sends half a message header and holds the connection until the
// server closes it, stallHold passes or the run ends.
func (h *hostile) stall(ctx context.Context, c net.Conn) {
	h.stalls.Add(1)
	defer h.stalls.Add(-1)
	hdr := make([]byte, 8)
	binary.LittleEndian.PutUint32(hdr, 1024)  // messageLength
	binary.LittleEndian.PutUint32(hdr[4:], 7) // requestID
	if _, err := c.Write(hdr); err != nil {
		return
	}
	stop := context.AfterFunc(ctx, func() { _ = c.SetReadDeadline(time.Now()) })
	defer stop()
	t0 := time.Now()
	_ = c.SetReadDeadline(t0.Add(stallHold))
	_, err := c.Read(make([]byte, 1))
	held := int64(time.Since(t0))
	for old := h.stallMax.Load(); held > old && !h.stallMax.CompareAndSwap(old, held); old = h.stallMax.Load() {
	}
	switch {
	case ctx.Err() != nil || isTimeout(err):
	case h.killed():
		h.stallKilled.Add(1)
	default:
		h.stallClosed.Add(1)
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// drain reads whatever the server answers for up to d.
func drain(c net.Conn, d time.Duration) {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, _ = io.Copy(io.Discard, c)
}

// zlibBomb is a 37-byte OP_COMPRESSED message (zlib) whose header claims
// an uncompressed size of 48 MB: issue #9's finding 4.
func zlibBomb() []byte {
	// zlib stream of 4 zero bytes (12 bytes).
	z := []byte{0x78, 0xda, 0x63, 0x60, 0x60, 0x60, 0x00, 0x00, 0x00, 0x04, 0x00, 0x01}
	msg := make([]byte, 25, 25+len(z))
	binary.LittleEndian.PutUint32(msg[0:], uint32(25+len(z))) // messageLength
	binary.LittleEndian.PutUint32(msg[4:], 1)                 // requestID
	binary.LittleEndian.PutUint32(msg[12:], 2012)             // OP_COMPRESSED
	binary.LittleEndian.PutUint32(msg[16:], 2013)             // originalOpcode: OP_MSG
	binary.LittleEndian.PutUint32(msg[20:], 48<<20)           // uncompressedSize
	msg[24] = 2                                               // compressorId: zlib
	return append(msg, z...)
}

// counts returns the sent counts by kind.
func (h *hostile) counts() []int64 {
	out := make([]int64, len(h.sent))
	for i := range h.sent {
		out[i] = h.sent[i].Load()
	}
	return out
}

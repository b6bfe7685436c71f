package integration

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/wire"
)

// Hostile wire input against the real binary (issue #9): a tiny
// OP_COMPRESSED claiming 48 MB, and connections that stall mid-message.

// startRaw starts `relaydb serve` in memory on a free port and waits until
// it answers ping on a raw connection; it returns the process and address.
func startRaw(t *testing.T, extra ...string) (*proc, string) {
	t.Helper()
	port := freePort(t)
	args := append([]string{"serve", "--port", itoa(port), "--bind_ip", "127.0.0.1", "--inMemory"}, extra...)
	p := startProc(t, args...)
	addr := "127.0.0.1:" + itoa(port)
	deadline := time.Now().Add(20 * time.Second)
	for {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			err = rawPing(c)
			c.Close()
			if err == nil {
				return p, addr
			}
		}
		select {
		case <-p.done:
			t.Fatalf("relaydb exited during startup with code %d:\n%s", p.code, p.out.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("relaydb not answering ping after 20s")
		}
	}
}

func rawPing(c net.Conn) error {
	if _, err := c.Write(opMsgBytes(1, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}, false, false)); err != nil {
		return err
	}
	_, doc, err := readReply(c, 5*time.Second)
	if err == nil && !isOK(doc) {
		err = errors.New("ping not ok")
	}
	return err
}

// closedAfter reads c until the server closes it and returns how long that
// took; it fails when c is still open after d.
func closedAfter(c net.Conn, d time.Duration) (time.Duration, error) {
	start := time.Now()
	_ = c.SetReadDeadline(start.Add(d))
	_, err := io.Copy(io.Discard, c)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return 0, fmt.Errorf("connection still open after %v", d)
	}
	return time.Since(start), nil
}

func waitClosed(t *testing.T, c net.Conn, d time.Duration) time.Duration {
	t.Helper()
	took, err := closedAfter(c, d)
	if err != nil {
		t.Fatal(err)
	}
	return took
}

// claimMessages are issue #9's messages: under 40 bytes, a valid tiny
// zlib or zstd stream, uncompressedSize just under 48 MB.
func claimMessages(t *testing.T) map[string][]byte {
	var zb bytes.Buffer
	zw := zlib.NewWriter(&zb)
	zw.Close()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(false))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for name, p := range map[string]struct {
		id      byte
		payload []byte
	}{"zlib": {wire.CompressorZlib, zb.Bytes()}, "zstd": {wire.CompressorZstd, enc.EncodeAll([]byte("ab"), nil)}} {
		body := []byte{0xdd, 0x07, 0, 0} // OP_MSG
		body = append(body, le32(wire.DefaultMaxMessageSize-wire.HeaderLen)...)
		body = append(append(body, p.id), p.payload...)
		out[name] = frame(9, int32(wire.OpCompressed), body)
	}
	return out
}

func le32(v int32) []byte {
	return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}
}

// rssBytes is the process's resident set size from /proc (Linux).
func rssBytes(t *testing.T, pid int) int64 {
	t.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatalf("read RSS: %v", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc status")
	return 0
}

// Each claim message closes its connection at once, and 32 senders
// repeating them for a second leave RSS within 256 MB of where it was (the
// old decoders allocated the 48 MB claimed: RSS rose by gigabytes).
func TestWireHostileCompressedClaim(t *testing.T) {
	t.Parallel()
	p, addr := startRaw(t)
	msgs := claimMessages(t)
	for name, msg := range msgs {
		if len(msg) > 37 {
			t.Fatalf("%s: repro is %d bytes", name, len(msg))
		}
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.Write(msg)
		t.Logf("%s (%d bytes): closed after %v", name, len(msg), waitClosed(t, c, 5*time.Second))
		c.Close()
	}
	before := rssBytes(t, p.cmd.Process.Pid)
	sent := flood(addr, msgs, 32, time.Second)
	after := rssBytes(t, p.cmd.Process.Pid)
	t.Logf("%d claim messages from 32 senders: RSS %d MB -> %d MB", sent, before>>20, after>>20)
	if after-before > 256<<20 {
		t.Errorf("RSS grew by %d MB", (after-before)>>20)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := rawPing(c); err != nil {
		t.Fatalf("server not serving after the flood: %v", err)
	}
}

// flood has senders send msgs on fresh connections for d; it returns how
// many were sent.
func flood(addr string, msgs map[string][]byte, senders int, d time.Duration) int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	sent := 0
	stop := time.Now().Add(d)
	for range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				for _, m := range msgs {
					c, err := net.DialTimeout("tcp", addr, time.Second)
					if err != nil {
						continue
					}
					c.Write(m)
					_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
					io.Copy(io.Discard, c)
					c.Close()
					mu.Lock()
					sent++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return sent
}

// A connection that sends half a header, or a header and part of a body,
// is closed after the server's message timeout (default 30 s, here set to
// 1 s with --setParameter messageTimeoutMillis); one idle between messages
// for as long stays open (issue #9: both were held forever).
func TestWireHostileStalledMessage(t *testing.T) {
	t.Parallel()
	const timeout = time.Second
	_, addr := startRaw(t, "--setParameter", "messageTimeoutMillis=1000")
	ping := opMsgBytes(2, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}, false, false)
	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	var wg sync.WaitGroup
	for name, part := range map[string][]byte{"half a header": ping[:8], "header and part of the body": ping[:20]} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write(part)
		wg.Add(1)
		go func() {
			defer wg.Done()
			took, err := closedAfter(c, timeout+10*time.Second)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			t.Logf("%s: closed after %v", name, took)
			if took < timeout-100*time.Millisecond {
				t.Errorf("%s: closed after %v, before the %v timeout", name, took, timeout)
			}
		}()
	}
	wg.Wait()
	if err := rawPing(idle); err != nil {
		t.Fatalf("idle connection not served after the timeout: %v", err)
	}
}

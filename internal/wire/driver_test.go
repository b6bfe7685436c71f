package wire

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

var update = flag.Bool("update", false, "rewrite testdata/driver with captured driver traffic")

// fakeServer answers the official Go driver using only this package, and
// records every message it receives. It proves the framing against a real
// client and yields real bytes for the fuzz corpora.
type fakeServer struct {
	ln   net.Listener
	mu   sync.Mutex
	msgs [][]byte // full messages as received
	seen map[string]bool
}

func startFakeServer(t *testing.T) *fakeServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeServer{ln: ln, seen: map[string]bool{}}
	t.Cleanup(func() { ln.Close() })
	go s.accept()
	return s
}

func (s *fakeServer) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		go s.serve(c)
	}
}

func (s *fakeServer) serve(c net.Conn) {
	defer c.Close()
	for {
		h, body, err := ReadMessage(c, 0)
		if err != nil {
			return
		}
		s.record(AppendHeader(nil, h), body)
		out, err := s.handle(h, body)
		if err != nil {
			s.note("error: " + err.Error())
			return
		}
		if out != nil {
			if _, err := c.Write(out); err != nil {
				return
			}
		}
	}
}

func (s *fakeServer) record(hdr, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgs = append(s.msgs, cat(hdr, body))
}

func (s *fakeServer) note(what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen[what] = true
}

func (s *fakeServer) handle(h Header, body []byte) ([]byte, error) {
	switch h.OpCode {
	case OpQuery:
		q, err := ParseQuery(body)
		if err != nil {
			return nil, err
		}
		s.note("OP_QUERY " + q.Query.Index(0).Key())
		return AppendReply(nil, 1, h.RequestID, 0, 0, 0, s.reply(q.Query)), nil
	case OpMsg:
		m, err := ParseMsg(body)
		if err != nil {
			return nil, err
		}
		cmd := m.Body.Index(0).Key()
		s.note("OP_MSG " + cmd)
		for _, seq := range m.Sequences {
			s.note(fmt.Sprintf("sequence %s %s x%d", cmd, seq.Identifier, len(seq.Docs)))
		}
		if m.Flags&MoreToCome != 0 {
			return nil, nil
		}
		return AppendMsg(nil, 1, h.RequestID, 0, s.reply(m.Body)), nil
	case OpCompressed:
		op, inner, err := ParseCompressed(body, 0)
		if err != nil {
			return nil, err
		}
		s.note("OP_COMPRESSED " + op.String())
		out, err := s.handle(Header{RequestID: h.RequestID, OpCode: op}, inner)
		if err != nil || out == nil {
			return out, err
		}
		rh, _ := ParseHeader(out)
		return AppendCompressed(nil, rh.RequestID, rh.ResponseTo, rh.OpCode, CompressorZstd, out[HeaderLen:])
	}
	return nil, fmt.Errorf("unexpected op code %v", h.OpCode)
}

// reply builds a minimal successful reply for cmd.
func (s *fakeServer) reply(cmd bson.Raw) []byte {
	d := bson.D{{Key: "ok", Value: 1.0}}
	switch cmd.Index(0).Key() {
	case "hello", "isMaster", "ismaster":
		d = bson.D{
			{Key: "isWritablePrimary", Value: true}, {Key: "ismaster", Value: true},
			{Key: "helloOk", Value: true}, {Key: "maxBsonObjectSize", Value: int32(16 << 20)},
			{Key: "maxMessageSizeBytes", Value: DefaultMaxMessageSize},
			{Key: "maxWriteBatchSize", Value: int32(100000)},
			{Key: "localTime", Value: bson.NewDateTimeFromTime(time.Now())},
			{Key: "minWireVersion", Value: int32(0)}, {Key: "maxWireVersion", Value: int32(21)},
			{Key: "compression", Value: bson.A{"zstd"}}, {Key: "ok", Value: 1.0},
		}
	case "insert":
		d = bson.D{{Key: "n", Value: int32(3)}, {Key: "ok", Value: 1.0}}
	}
	b, _ := bson.Marshal(d)
	return b
}

func TestGoDriverAgainstFakeServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a loopback listener")
	}
	s := startFakeServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	uri := "mongodb://" + s.ln.Addr().String() + "/?directConnection=true&compressors=zstd,zlib,snappy"
	for _, api := range []bool{false, true} {
		opts := options.Client().ApplyURI(uri)
		if api {
			opts.SetServerAPIOptions(options.ServerAPI(options.ServerAPIVersion1))
		}
		c, err := mongo.Connect(opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Ping(ctx, nil); err != nil {
			t.Fatalf("ping (serverAPI %v): %v", api, err)
		}
		docs := []any{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "_id", Value: 3}}}
		if _, err := c.Database("test").Collection("c").InsertMany(ctx, docs); err != nil {
			t.Fatalf("insertMany: %v", err)
		}
		if err := c.Disconnect(ctx); err != nil && !errors.Is(err, io.EOF) {
			t.Logf("disconnect: %v", err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, want := range []string{"OP_MSG hello", "OP_COMPRESSED OP_MSG", "sequence insert documents x3"} {
		if !s.seen[want] {
			t.Errorf("never saw %q; saw %v", want, s.seen)
		}
	}
	for k := range s.seen {
		if len(k) > 6 && k[:6] == "error:" {
			t.Errorf("server %s", k)
		}
	}
	t.Logf("saw %v", s.seen)
	if *update {
		writeDriverCorpus(t, s.msgs)
	}
}

func writeDriverCorpus(t *testing.T, msgs [][]byte) {
	dir := filepath.Join("testdata", "driver")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, m := range msgs {
		h, _ := ParseHeader(m)
		name := filepath.Join(dir, fmt.Sprintf("%02d-%s.bin", i, h.OpCode))
		if err := os.WriteFile(name, m, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// driverCorpus returns the recorded driver messages (full, with header).
func driverCorpus(tb testing.TB) [][]byte {
	files, _ := filepath.Glob(filepath.Join("testdata", "driver", "*.bin"))
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

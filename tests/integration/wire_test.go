package integration

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// TestWire shares one server across raw-protocol and driver-option subtests.
func TestWire(t *testing.T) {
	s, c := startServer(t)
	addr := net.JoinHostPort("127.0.0.1", itoa(s.Port()))
	t.Run("RawOpMsgHello", func(t *testing.T) { testRawOpMsg(t, addr) })
	t.Run("OpQueryHello", func(t *testing.T) { testOpQueryHello(t, addr) })
	t.Run("BadFrames", func(t *testing.T) { testBadFrames(t, addr, c) })
	t.Run("Compressors", func(t *testing.T) { testCompressors(t, s.URI(), addr) })
	t.Run("Unacknowledged", func(t *testing.T) { testUnacknowledged(t, s.URI(), c) })
}

func dial(t *testing.T, addr string) *net.TCPConn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 3*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn.(*net.TCPConn)
}

// roundTrip writes msg and reads one reply document.
func roundTrip(t *testing.T, conn net.Conn, msg []byte) (int32, bson.D) {
	t.Helper()
	if _, err := conn.Write(msg); err != nil {
		t.Fatalf("write: %v", err)
	}
	op, doc, err := readReply(conn, 5*time.Second)
	if err != nil {
		t.Fatalf("read reply: %v", err)
	}
	return op, doc
}

func testRawOpMsg(t *testing.T, addr string) {
	conn := dial(t, addr)
	for i, sum := range []bool{false, true} {
		cmd := bson.D{{Key: "hello", Value: 1}, {Key: "$db", Value: "admin"}}
		op, doc := roundTrip(t, conn, opMsgBytes(int32(i+1), cmd, sum, false))
		if op != opMsg || !isOK(doc) || field(doc, "isWritablePrimary") != true {
			t.Errorf("OP_MSG hello (checksum %v): op %d reply %s, want OP_MSG ok:1 isWritablePrimary:true", sum, op, asJSON(doc))
		}
	}
}

func testOpQueryHello(t *testing.T, addr string) {
	conn := dial(t, addr)
	for i, name := range []string{"hello", "isMaster", "ismaster"} {
		op, doc := roundTrip(t, conn, opQueryBytes(int32(i+1), "admin", bson.D{{Key: name, Value: 1}}))
		if op != opReply || !isOK(doc) {
			t.Errorf("OP_QUERY %s: op %d reply %s, want OP_REPLY ok:1", name, op, asJSON(doc))
			continue
		}
		key := "isWritablePrimary"
		if name != "hello" {
			key = "ismaster"
		}
		if field(doc, key) != true {
			t.Errorf("OP_QUERY %s: %s = %v, want true", name, key, field(doc, key))
		}
		if v, ok := field(doc, "maxWireVersion").(int32); !ok || v < 17 {
			t.Errorf("OP_QUERY %s: maxWireVersion = %v, want int32 >= 17 (MongoDB 6.0+)", name, field(doc, "maxWireVersion"))
		}
	}
}

// badFrame is a hostile input and whether to half-close after sending it.
type badFrame struct {
	name      string
	bytes     []byte
	halfClose bool
}

func badFrames() []badFrame {
	hello := opMsgBytes(7, bson.D{{Key: "hello", Value: 1}, {Key: "$db", Value: "admin"}}, false, false)
	tooLarge := append([]byte(nil), hello...)
	binary.LittleEndian.PutUint32(tooLarge, 100<<20)
	tooSmall := append([]byte(nil), hello...)
	binary.LittleEndian.PutUint32(tooSmall, 8)
	longer := append([]byte(nil), hello...)
	binary.LittleEndian.PutUint32(longer, uint32(len(hello)+64))
	shorter := append([]byte(nil), hello...)
	binary.LittleEndian.PutUint32(shorter, uint32(len(hello)-6))
	unknownOp := append([]byte(nil), hello...)
	binary.LittleEndian.PutUint32(unknownOp[12:], 9999)
	garbage := make([]byte, 300)
	for i := range garbage {
		garbage[i] = byte(i*131 + 7)
	}
	binary.LittleEndian.PutUint32(garbage, 300)
	return []badFrame{
		{"truncated", hello[:len(hello)-10], true},
		{"lengthTooLarge", tooLarge, false},
		{"lengthTooSmall", tooSmall, false},
		{"lengthLongerThanSent", longer, true},
		{"lengthShorterThanBody", shorter, true},
		{"badChecksum", opMsgBytes(8, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}, true, true), false},
		{"unknownOpcode", unknownOp, false},
		{"garbage", garbage, true},
		{"http", []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), false},
	}
}

// testBadFrames sends hostile frames; each must end in a closed connection or
// an error reply (never ok:1, never a hang), while a normal client pings on.
func testBadFrames(t *testing.T, addr string, c *mongo.Client) {
	var pings, pingErrs atomic.Int32
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
				pingErrs.Add(1)
			}
			cancel()
			pings.Add(1)
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	for _, bf := range badFrames() {
		t.Run(bf.name, func(t *testing.T) {
			checkBadFrame(t, addr, bf)
			mustPing(t, c)
		})
	}
	close(stop)
	wg.Wait()
	if pings.Load() == 0 || pingErrs.Load() != 0 {
		t.Errorf("concurrent client: %d pings, %d failed; want >0 pings and no failures", pings.Load(), pingErrs.Load())
	}
	mustPing(t, c)
}

func checkBadFrame(t *testing.T, addr string, bf badFrame) {
	conn := dial(t, addr)
	if _, err := conn.Write(bf.bytes); err != nil && !isConnClosed(err) {
		t.Fatalf("write: %v", err)
	}
	if bf.halfClose {
		_ = conn.CloseWrite()
	}
	_, doc, err := readReply(conn, 5*time.Second)
	var ne net.Error
	switch {
	case err == nil && isOK(doc):
		t.Errorf("server answered ok:1 to a %s frame: %s", bf.name, asJSON(doc))
	case err == nil:
		// An error reply is acceptable.
	case errors.As(err, &ne) && ne.Timeout():
		t.Errorf("%s frame: server neither replied nor closed the connection within 5s", bf.name)
	case isConnClosed(err):
		// Closing the connection is acceptable (MongoDB's usual answer).
	default:
		// A reply we cannot parse as a wire message (e.g. an HTTP notice) is acceptable.
		if !strings.Contains(err.Error(), "opcode") && !strings.Contains(err.Error(), "length") {
			t.Logf("%s frame: %v", bf.name, err)
		}
	}
}

func isConnClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed)
}

func testCompressors(t *testing.T, uri, addr string) {
	for _, comp := range []string{"snappy", "zlib", "zstd"} {
		t.Run(comp, func(t *testing.T) {
			conn := dial(t, addr)
			_, doc := roundTrip(t, conn, opMsgBytes(1, bson.D{{Key: "hello", Value: 1}, {Key: "$db", Value: "admin"},
				{Key: "compression", Value: bson.A{comp}}}, false, false))
			if got := asJSON(bson.D{{Key: "c", Value: field(doc, "compression")}}); got != `{"c":["`+comp+`"]}` {
				t.Errorf("hello compression negotiation = %s, want [%q]", got, comp)
			}
			cl, err := mongo.Connect(options.Client().ApplyURI(uri).SetCompressors([]string{comp}))
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cl.Disconnect(tctx(t, opTimeout))
			coll := freshColl(t, cl, "wire")
			crudRoundTrip(t, coll)
		})
	}
}

// crudRoundTrip inserts a compressible document, reads, updates and deletes it.
func crudRoundTrip(t *testing.T, coll *mongo.Collection) {
	ctx := tctx(t, opTimeout)
	big := strings.Repeat("compress me ", 2000)
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "s", Value: big}}); err != nil {
		t.Fatalf("insert: %v", err)
	}
	var d bson.D
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Decode(&d); err != nil || field(d, "s") != big {
		t.Fatalf("find after compressed insert: err %v, equal %v", err, field(d, "s") == big)
	}
	if r, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "n", Value: 1}}}}); err != nil || r.ModifiedCount != 1 {
		t.Errorf("update: %+v %v", r, err)
	}
	if r, err := coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil || r.DeletedCount != 1 {
		t.Errorf("delete: %+v %v", r, err)
	}
}

func testUnacknowledged(t *testing.T, uri string, c *mongo.Client) {
	cl, err := mongo.Connect(options.Client().ApplyURI(uri).SetWriteConcern(writeconcern.Unacknowledged()))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cl.Disconnect(tctx(t, opTimeout))
	ctx := tctx(t, opTimeout)
	coll := cl.Database("wire").Collection("w0")
	for i := range 3 { // the duplicate in the middle must not break the connection
		_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i % 2}, {Key: "w", Value: 0}})
		if err != nil {
			t.Fatalf("w:0 insert %d: %v", i, err)
		}
	}
	mustPing(t, cl)
	check := c.Database("wire").Collection("w0")
	deadline := time.Now().Add(5 * time.Second)
	for {
		n, err := check.CountDocuments(ctx, bson.D{{Key: "w", Value: 0}})
		if err == nil && n == 2 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("w:0 writes not applied within 5s: count %d, err %v; want 2", n, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

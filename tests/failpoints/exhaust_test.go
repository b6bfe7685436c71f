package failpoints

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/wire"
	"github.com/relaydb/relaydb/tests/harness"
)

// cursorReply is the part of a find/getMore reply the exhaust test reads.
type cursorReply struct {
	Cursor struct {
		ID         int64      `bson:"id"`
		FirstBatch []bson.Raw `bson:"firstBatch"`
		NextBatch  []bson.Raw `bson:"nextBatch"`
	} `bson:"cursor"`
}

// TestExhaustGetMore: a getMore sent with exhaustAllowed is answered by a
// stream of batches, each with moreToCome and answering the previous
// reply's requestID, until the last (moreToCome clear, cursor id 0).
func TestExhaustGetMore(t *testing.T) {
	s := harness.Start(t)
	docs := make([]any, 7)
	for i := range docs {
		docs[i] = bson.D{{Key: "i", Value: i}}
	}
	if _, err := s.Client(t).Database("fp").Collection("exh").InsertMany(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
	nc, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", s.Port()), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(20 * time.Second))

	write(t, nc, 1, 0, bson.D{{Key: "find", Value: "exh"}, {Key: "batchSize", Value: 2}, {Key: "$db", Value: "fp"}})
	_, _, body := read(t, nc)
	var cur cursorReply
	if err := bson.Unmarshal(body, &cur); err != nil || cur.Cursor.ID == 0 || len(cur.Cursor.FirstBatch) != 2 {
		t.Fatalf("find: %v %s", err, bson.Raw(body))
	}
	write(t, nc, 2, wire.ExhaustAllowed, bson.D{{Key: "getMore", Value: cur.Cursor.ID},
		{Key: "collection", Value: "exh"}, {Key: "batchSize", Value: 2}, {Key: "$db", Value: "fp"}})
	answers := int32(2)
	for i, n := range []int{2, 2, 1} { // the 5 documents after the first batch
		h, flags, body := read(t, nc)
		if h.ResponseTo != answers {
			t.Fatalf("reply %d answers %d, want %d", i, h.ResponseTo, answers)
		}
		answers = h.RequestID
		var r cursorReply
		if err := bson.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		last := i == 2
		if len(r.Cursor.NextBatch) != n || (flags&wire.MoreToCome == 0) != last || (r.Cursor.ID == 0) != last {
			t.Fatalf("reply %d: %d documents, flags %b, cursor %d: %s", i, len(r.Cursor.NextBatch), flags, r.Cursor.ID, bson.Raw(body))
		}
	}
	// The stream is over: the connection answers a new request.
	write(t, nc, 3, 0, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
	if h, _, _ := read(t, nc); h.ResponseTo != 3 {
		t.Errorf("ping answered %d", h.ResponseTo)
	}
}

// write sends cmd as an OP_MSG with requestID id and flags.
func write(t *testing.T, nc net.Conn, id int32, flags uint32, cmd bson.D) {
	t.Helper()
	b, err := bson.Marshal(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nc.Write(wire.AppendMsg(nil, id, 0, flags, b)); err != nil {
		t.Fatal(err)
	}
}

// read reads one OP_MSG reply: its header, flags and body document.
func read(t *testing.T, nc net.Conn) (wire.Header, uint32, []byte) {
	t.Helper()
	h, raw, err := wire.ReadMessage(nc, 48_000_000)
	if err != nil {
		t.Fatal(err)
	}
	m, err := wire.ParseMsg(raw)
	if err != nil {
		t.Fatal(err)
	}
	return h, m.Flags, m.Body
}

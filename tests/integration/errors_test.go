package integration

import (
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// TestMalformedCommands sends commands MongoDB rejects; each must fail with
// MongoDB's code and leave the server answering ping.
func TestMalformedCommands(t *testing.T) {
	s, c := startServer(t)
	db := c.Database("errs")
	if _, err := db.Collection("c").InsertOne(tctx(t, opTimeout), bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatalf("insert: %v", err)
	}
	cases := []struct {
		name string
		cmd  bson.D
		code int32
	}{
		{"findLimitString", bson.D{{Key: "find", Value: "c"}, {Key: "limit", Value: "x"}}, 14},
		{"findFilterArray", bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.A{1}}}, 14},
		{"insertDocumentsString", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: "x"}}, 14},
		{"updateUpdatesInt", bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: int32(5)}}, 14},
		{"findSortString", bson.D{{Key: "find", Value: "c"}, {Key: "sort", Value: "x"}}, 14},
		{"deleteLimitTwo", bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "limit", Value: int32(2)}}}}}, 9},
		{"findUnknownField", bson.D{{Key: "find", Value: "c"}, {Key: "bogusField", Value: 1}}, 40415},
		{"insertUnknownField", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{}}}, {Key: "bogusField", Value: 1}}, 40415},
		{"aggregateUnknownField", bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{}}, {Key: "cursor", Value: bson.D{}}, {Key: "bogusField", Value: 1}}, 40415},
		{"updateStatementUnknownField", bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 1}}}}}, {Key: "bogus", Value: 1}}}}}, 40415},
		{"aggregateWithoutCursor", bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{}}}, 9},
		{"unknownCommand", bson.D{{Key: "frobnicate", Value: 1}}, 59},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := db.RunCommand(tctx(t, opTimeout), tc.cmd).Err()
			wantCode(t, err, tc.code, asJSON(tc.cmd))
			mustPing(t, c)
		})
	}
	t.Run("Oversized", func(t *testing.T) { testOversized(t, net2addr(s.Port()), c) })
	t.Run("DeepNesting", func(t *testing.T) { testDeepNesting(t, c) })
}

func net2addr(port int) string { return "127.0.0.1:" + itoa(port) }

// opMsgWithSequence builds an OP_MSG: kind-0 cmd plus one kind-1 sequence.
func opMsgWithSequence(reqID int32, cmd bson.D, ident string, docs ...[]byte) []byte {
	body := binary.LittleEndian.AppendUint32(nil, 0)
	c, err := bson.Marshal(cmd)
	if err != nil {
		panic(err)
	}
	body = append(append(body, 0), c...)
	size := 4 + len(ident) + 1
	for _, d := range docs {
		size += len(d)
	}
	body = append(body, 1)
	body = binary.LittleEndian.AppendUint32(body, uint32(size))
	body = append(append(body, ident...), 0)
	for _, d := range docs {
		body = append(body, d...)
	}
	return frame(reqID, opMsg, body)
}

// testOversized sends a 17 MB document over raw TCP (the driver would refuse
// it client-side): the insert must fail, and the server must survive.
func testOversized(t *testing.T, addr string, c *mongo.Client) {
	big, err := bson.Marshal(bson.D{{Key: "_id", Value: "big"}, {Key: "s", Value: strings.Repeat("x", 17<<20)}})
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	conn := dial(t, addr)
	msg := opMsgWithSequence(1, bson.D{{Key: "insert", Value: "c"}, {Key: "$db", Value: "errs"}}, "documents", big)
	_ = conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, werr := conn.Write(msg)
	_, doc, rerr := readReply(conn, 10*time.Second)
	switch {
	case werr == nil && rerr == nil && isOK(doc) && field(doc, "writeErrors") == nil:
		t.Errorf("17 MB document accepted: %s", asJSON(doc))
	case rerr != nil && !isConnClosed(rerr) && !isConnClosed(werr):
		t.Errorf("17 MB document: no reply and no close: write %v, read %v", werr, rerr)
	}
	mustPing(t, c)
	if findOne(t, c.Database("errs").Collection("c"), "big") != nil {
		t.Errorf("17 MB document was stored")
	}
}

func nested(depth int) bson.D {
	d := bson.D{{Key: "leaf", Value: 1}}
	for range depth - 1 {
		d = bson.D{{Key: "n", Value: d}}
	}
	return d
}

// testDeepNesting: MongoDB stores documents up to 100 levels deep and
// rejects deeper ones.
func testDeepNesting(t *testing.T, c *mongo.Client) {
	coll := c.Database("errs").Collection("deep")
	ctx := tctx(t, opTimeout)
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "ok"}, {Key: "n", Value: nested(50)}}); err != nil {
		t.Errorf("insert 51-level document: %v", err)
	}
	_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "deep"}, {Key: "n", Value: nested(150)}})
	if err == nil {
		t.Errorf("insert 151-level document: got no error")
	} else if _, ok := errCode(err); !ok {
		t.Errorf("insert 151-level document: got %T %v, want a server error", err, err)
	}
	mustPing(t, c)
	if findOne(t, coll, "deep") != nil {
		t.Errorf("151-level document was stored")
	}
}

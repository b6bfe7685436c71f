package wire

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

const fuzzMax = 1 << 20

// seedMessages are full messages: recorded driver traffic plus built ones.
func seedMessages(f *testing.F) [][]byte {
	body := raw(f, bson.D{{Key: "insert", Value: "c"}, {Key: "$db", Value: "test"}})
	doc := raw(f, bson.D{{Key: "_id", Value: int32(1)}})
	msgs := append(driverCorpus(f), helloMsg(f), isMasterQuery(f),
		AppendMsg(nil, 1, 0, ChecksumPresent, body),
		(&Msg{Body: body, bodyIndex: 1, Sequences: []Sequence{{Identifier: "documents", Docs: []bson.Raw{doc, doc}}}}).Append(nil, 2, 0),
		AppendReply(nil, 1, 2, 0, 0, 0, doc))
	for _, id := range allCompressors {
		c, _ := AppendCompressed(nil, 3, 0, OpMsg, id, helloMsg(f)[HeaderLen:])
		msgs = append(msgs, c)
	}
	return msgs
}

// seedBodies returns the bodies of seed messages with op code op, looking
// inside OP_COMPRESSED too.
func seedBodies(f *testing.F, op OpCode) [][]byte {
	var out [][]byte
	for _, m := range seedMessages(f) {
		h, _ := ParseHeader(m)
		body := m[HeaderLen:]
		if h.OpCode == OpCompressed && op != OpCompressed {
			inner, b, err := ParseCompressed(body, 0)
			if err != nil {
				f.Fatal(err)
			}
			h.OpCode, body = inner, b
		}
		if h.OpCode == op {
			out = append(out, body)
		}
	}
	return out
}

func FuzzReadMessage(f *testing.F) {
	for _, m := range seedMessages(f) {
		f.Add(m)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, body, err := ReadMessage(bytes.NewReader(data), fuzzMax)
		if err != nil {
			return
		}
		if int(h.MessageLength) != HeaderLen+len(body) || h.MessageLength > fuzzMax {
			t.Fatalf("length %d, body %d", h.MessageLength, len(body))
		}
		if got := cat(AppendHeader(nil, h), body); !bytes.Equal(got, data[:h.MessageLength]) {
			t.Fatal("header+body do not reproduce the input")
		}
		switch h.OpCode { // exercise the parsers on well-framed input
		case OpMsg:
			ParseMsg(body)
		case OpQuery:
			ParseQuery(body)
		case OpReply:
			ParseReply(body)
		case OpCompressed:
			ParseCompressed(body, fuzzMax)
		}
	})
}

func FuzzParseMsg(f *testing.F) {
	for _, b := range seedBodies(f, OpMsg) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		m, err := ParseMsg(body)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T is not *Error", err)
			}
			return
		}
		out := m.Append(nil, 0, 0)[HeaderLen:]
		n := len(body)
		if m.Flags&ChecksumPresent != 0 {
			n -= 4 // the checksum is recomputed
		}
		if len(out) != len(body) || !bytes.Equal(out[:n], body[:n]) {
			t.Fatalf("round trip differs:\n in %x\nout %x", body, out)
		}
		m2, err := ParseMsg(out)
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if !bytes.Equal(m2.Append(nil, 0, 0)[HeaderLen:], out) {
			t.Fatal("second round trip differs")
		}
	})
}

func FuzzParseCompressed(f *testing.F) {
	for _, b := range seedBodies(f, OpCompressed) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		op, out, err := ParseCompressed(body, fuzzMax)
		if err != nil {
			return
		}
		if len(out) > fuzzMax-HeaderLen {
			t.Fatalf("decompressed %d bytes beyond max", len(out))
		}
		msg, err := AppendCompressed(nil, 0, 0, op, body[8], out)
		if err != nil {
			t.Fatal(err)
		}
		op2, out2, err := ParseCompressed(msg[HeaderLen:], fuzzMax)
		if err != nil || op2 != op || !bytes.Equal(out, out2) {
			t.Fatalf("recompress round trip: %v", err)
		}
	})
}

func FuzzParseQuery(f *testing.F) {
	for _, b := range seedBodies(f, OpQuery) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		q, err := ParseQuery(body)
		if err != nil {
			return
		}
		if out := AppendQuery(nil, 0, q)[HeaderLen:]; !bytes.Equal(out, body) {
			t.Fatalf("round trip differs:\n in %x\nout %x", body, out)
		}
	})
}

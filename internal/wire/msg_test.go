package wire

import (
	"bytes"
	"encoding/binary"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestAppendMsgGolden(t *testing.T) {
	body := raw(t, bson.D{{Key: "ping", Value: int32(1)}})
	got := AppendMsg([]byte("prefix"), 5, 9, 0, body)
	want := cat([]byte("prefix"), le32(int32(HeaderLen+4+1+len(body))), le32(5), le32(9), le32(2013),
		le32(0), []byte{0}, body)
	if !bytes.Equal(got, want) {
		t.Fatalf("AppendMsg:\n got %x\nwant %x", got, want)
	}
}

func TestMsgRoundTrip(t *testing.T) {
	body := raw(t, bson.D{{Key: "insert", Value: "c"}, {Key: "$db", Value: "test"}})
	d1, d2 := raw(t, bson.D{{Key: "_id", Value: int32(1)}}), raw(t, bson.D{{Key: "_id", Value: "two"}})
	tests := []struct {
		name string
		msg  Msg
	}{
		{"body only", Msg{Body: body}},
		{"more to come", Msg{Flags: MoreToCome, Body: body}},
		{"exhaust allowed", Msg{Flags: ExhaustAllowed | 1<<20, Body: body}},
		{"checksum", Msg{Flags: ChecksumPresent, Body: body}},
		{"sequence after body", Msg{Body: body, Sequences: []Sequence{{Identifier: "documents", Docs: []bson.Raw{d1, d2}}}}},
		{"sequence before body", Msg{Body: body, bodyIndex: 1, Sequences: []Sequence{{Identifier: "documents", Docs: []bson.Raw{d1}}}}},
		{"empty sequence", Msg{Body: body, Sequences: []Sequence{{Identifier: "updates"}}}},
		{"two sequences + checksum", Msg{Flags: ChecksumPresent, Body: body, bodyIndex: 1, Sequences: []Sequence{
			{Identifier: "a", Docs: []bson.Raw{d1}}, {Identifier: "b", Docs: []bson.Raw{d2, d1}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wire := tc.msg.Append(nil, 3, 4)
			h, b, err := ReadMessage(bytes.NewReader(wire), 0)
			wantKind(t, err, nil)
			if h.RequestID != 3 || h.ResponseTo != 4 || h.OpCode != OpMsg {
				t.Fatalf("header %+v", h)
			}
			m, err := ParseMsg(b)
			wantKind(t, err, nil)
			if m.Flags != tc.msg.Flags || !bytes.Equal(m.Body, body) || len(m.Sequences) != len(tc.msg.Sequences) {
				t.Fatalf("parsed %+v, want %+v", m, tc.msg)
			}
			for i, s := range m.Sequences {
				ws := tc.msg.Sequences[i]
				if s.Identifier != ws.Identifier || len(s.Docs) != len(ws.Docs) {
					t.Fatalf("sequence %d: %+v, want %+v", i, s, ws)
				}
				for j := range s.Docs {
					if !bytes.Equal(s.Docs[j], ws.Docs[j]) {
						t.Fatalf("sequence %d doc %d differs", i, j)
					}
				}
			}
			if again := m.Append(nil, 3, 4); !bytes.Equal(again, wire) {
				t.Fatalf("re-append differs:\n got %x\nwant %x", again, wire)
			}
		})
	}
}

func TestAppendMsgMatchesMsgAppend(t *testing.T) {
	body := raw(t, bson.D{{Key: "ok", Value: 1.0}})
	for _, flags := range []uint32{0, ChecksumPresent, MoreToCome | ChecksumPresent} {
		a := AppendMsg(nil, 1, 2, flags, body)
		b := (&Msg{Flags: flags, Body: body}).Append(nil, 1, 2)
		if !bytes.Equal(a, b) {
			t.Fatalf("flags %b: AppendMsg and Msg.Append differ", flags)
		}
	}
}

func TestSequenceLookup(t *testing.T) {
	m := &Msg{Sequences: []Sequence{{Identifier: "documents"}}}
	if m.Sequence("documents") == nil || m.Sequence("updates") != nil {
		t.Fatal("Sequence lookup wrong")
	}
}

// msgBody assembles an OP_MSG body from flags and raw section bytes.
func msgBody(flags uint32, sections ...[]byte) []byte {
	return cat(append([][]byte{binary.LittleEndian.AppendUint32(nil, flags)}, sections...)...)
}

// seq builds a kind-1 section with a correct size.
func seq(id string, docs ...[]byte) []byte {
	payload := cat(append([][]byte{[]byte(id), {0}}, docs...)...)
	return cat([]byte{1}, le32(int32(4+len(payload))), payload)
}

func TestParseMsgErrors(t *testing.T) {
	body := raw(t, bson.D{{Key: "find", Value: "c"}})
	doc := raw(t, bson.D{{Key: "x", Value: int32(1)}})
	sec0 := cat([]byte{0}, body)
	badNul := append(bytes.Clone(body[:len(body)-1]), 1)
	tests := []struct {
		name  string
		in    []byte
		kind  error
		code  int32
		fatal bool
	}{
		{"empty", nil, ErrTruncated, 22, false},
		{"flags only", msgBody(0), ErrMalformed, 40587, false},
		{"unknown required flag", msgBody(1<<2, sec0), ErrIllegalFlags, 223, true},
		{"unknown required flag 15", msgBody(1<<15, sec0), ErrIllegalFlags, 223, true},
		{"checksum flag without room", msgBody(ChecksumPresent, []byte{0, 0}), ErrTruncated, 22, false},
		{"two bodies", msgBody(0, sec0, sec0), ErrMalformed, 40430, false},
		{"unknown section kind", msgBody(0, sec0, []byte{2, 0}), ErrMalformed, 40432, false},
		{"body length overruns", msgBody(0, []byte{0}, le32(100), body[4:]), ErrTruncated, 22, false},
		{"body length too small", msgBody(0, []byte{0}, le32(4)), ErrTruncated, 22, false},
		{"body length negative", msgBody(0, []byte{0}, le32(-8), body[4:]), ErrTruncated, 22, false},
		{"body missing NUL", msgBody(0, []byte{0}, badNul), ErrMalformed, 22, false},
		{"body truncated length", msgBody(0, []byte{0, 5, 0}), ErrTruncated, 22, false},
		{"trailing garbage", msgBody(0, sec0, []byte{1, 2}), ErrTruncated, 22, false},
		{"sequence size overruns", msgBody(0, sec0, []byte{1}, le32(1000), []byte("documents\x00")), ErrTruncated, 22, false},
		{"sequence size too small", msgBody(0, sec0, []byte{1}, le32(3)), ErrTruncated, 22, false},
		{"sequence size truncated", msgBody(0, sec0, []byte{1, 9}), ErrTruncated, 22, false},
		{"sequence id without NUL", msgBody(0, sec0, []byte{1}, le32(7), []byte("abc")), ErrMalformed, 17, false},
		{"sequence doc overruns", msgBody(0, sec0, []byte{1}, le32(4+2+4), []byte("d\x00"), le32(50)), ErrTruncated, 22, false},
		{"sequence doc partial", msgBody(0, sec0, seq("d", doc, doc[:6])), ErrTruncated, 22, false},
		{"duplicate sequence", msgBody(0, sec0, seq("d", doc), seq("d", doc)), ErrMalformed, 40431, false},
		{"sequence duplicates body field", msgBody(0, sec0, seq("find", doc)), ErrMalformed, 40433, false},
		{"no body with sequence", msgBody(0, seq("d", doc)), ErrMalformed, 40587, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseMsg(tc.in)
			wantKind(t, err, tc.kind)
			if m != nil {
				t.Fatal("got a message with an error")
			}
			we := err.(*Error)
			if int32(we.Code) != tc.code || we.Fatal() != tc.fatal {
				t.Fatalf("code %d fatal %v, want %d %v (%v)", we.Code, we.Fatal(), tc.code, tc.fatal, err)
			}
			if me := we.MongoError(); int32(me.Code) != tc.code || me.Msg == "" {
				t.Fatalf("MongoError() = %v", me)
			}
		})
	}
}

func TestChecksum(t *testing.T) {
	body := raw(t, bson.D{{Key: "ping", Value: int32(1)}})
	good := AppendMsg(nil, 11, 0, ChecksumPresent, body)
	_, b, err := ReadMessage(bytes.NewReader(good), 0)
	wantKind(t, err, nil)
	if _, err := ParseMsg(b); err != nil {
		t.Fatal(err)
	}
	// Flip one bit anywhere (header included, length excluded): mismatch.
	for _, at := range []int{4, 8, 12 + 3, 20, len(good) - 6, len(good) - 1} {
		bad := bytes.Clone(good)
		bad[at] ^= 0x10
		_, _, err := ReadMessage(bytes.NewReader(bad), 0)
		if at == 12+3 { // op code no longer OP_MSG: not checked
			wantKind(t, err, nil)
			continue
		}
		wantKind(t, err, ErrChecksum)
		if !IsFatal(err) {
			t.Fatal("checksum mismatch must be fatal")
		}
	}
	// VerifyChecksum serves rebuilt headers (after decompression).
	h := Header{RequestID: 11, OpCode: OpMsg}
	wantKind(t, VerifyChecksum(h, good[HeaderLen:]), nil)
	h.RequestID = 12
	wantKind(t, VerifyChecksum(h, good[HeaderLen:]), ErrChecksum)
	wantKind(t, VerifyChecksum(h, le32(int32(ChecksumPresent))), ErrTruncated)
	wantKind(t, VerifyChecksum(h, []byte{1}), nil) // too short for flags: ParseMsg's job
}

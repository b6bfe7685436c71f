package wire

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestQueryRoundTrip(t *testing.T) {
	sel := raw(t, bson.D{{Key: "a", Value: int32(1)}})
	for _, fields := range []bson.Raw{nil, sel} {
		in := isMasterQuery(t)
		if fields != nil {
			q, _ := ParseQuery(in[HeaderLen:])
			q.ReturnFieldsSelector = fields
			in = AppendQuery(nil, 7, q)
		}
		h, body, err := ReadMessage(bytes.NewReader(in), 0)
		wantKind(t, err, nil)
		if h.OpCode != OpQuery || h.RequestID != 7 {
			t.Fatalf("header %+v", h)
		}
		q, err := ParseQuery(body)
		wantKind(t, err, nil)
		if q.FullCollectionName != "admin.$cmd" || q.Database() != "admin" || q.NumberToReturn != -1 {
			t.Fatalf("query %+v", q)
		}
		if k := q.Query.Index(0).Key(); k != "isMaster" {
			t.Fatalf("first key %q", k)
		}
		if !bytes.Equal(q.ReturnFieldsSelector, fields) {
			t.Fatalf("selector %v, want %v", q.ReturnFieldsSelector, fields)
		}
		if again := AppendQuery(nil, 7, q); !bytes.Equal(again, in) {
			t.Fatal("re-append differs")
		}
	}
}

func TestParseQueryErrors(t *testing.T) {
	doc := raw(t, bson.D{{Key: "isMaster", Value: int32(1)}})
	ns := []byte("admin.$cmd\x00")
	tests := []struct {
		name string
		in   []byte
		kind error
	}{
		{"short", le32(0), ErrTruncated},
		{"name without NUL", cat(le32(0), bytes.Repeat([]byte("a"), 30)), ErrMalformed},
		{"no skip/return", cat(le32(0), bytes.Repeat([]byte("a"), 15), []byte{0}, le32(0)), ErrTruncated},
		{"query overruns", cat(le32(0), ns, le32(0), le32(-1), le32(200), doc[4:]), ErrTruncated},
		{"selector overruns", cat(le32(0), ns, le32(0), le32(-1), doc, le32(9)), ErrTruncated},
		{"trailing bytes", cat(le32(0), ns, le32(0), le32(-1), doc, doc, []byte{7}), ErrMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseQuery(tc.in)
			wantKind(t, err, tc.kind)
			if IsFatal(err) {
				t.Fatal("OP_QUERY parse errors are answerable")
			}
		})
	}
}

func TestReplyRoundTrip(t *testing.T) {
	d1 := raw(t, bson.D{{Key: "ismaster", Value: true}, {Key: "ok", Value: 1.0}})
	d2 := raw(t, bson.D{{Key: "x", Value: "y"}})
	for _, docs := range [][][]byte{nil, {d1}, {d1, d2}} {
		in := AppendReply(nil, 2, 7, ReplyAwaitCapable, 42, 3, docs...)
		h, body, err := ReadMessage(bytes.NewReader(in), 0)
		wantKind(t, err, nil)
		if h.OpCode != OpReply || h.ResponseTo != 7 {
			t.Fatalf("header %+v", h)
		}
		r, err := ParseReply(body)
		wantKind(t, err, nil)
		if r.Flags != ReplyAwaitCapable || r.CursorID != 42 || r.StartingFrom != 3 || len(r.Docs) != len(docs) {
			t.Fatalf("reply %+v", r)
		}
		for i := range docs {
			if !bytes.Equal(r.Docs[i], docs[i]) {
				t.Fatalf("doc %d differs", i)
			}
		}
	}
}

func TestParseReplyErrors(t *testing.T) {
	d := raw(t, bson.D{{Key: "ok", Value: 1.0}})
	body := func(n int32, docs ...[]byte) []byte {
		return cat(append([][]byte{le32(0), make([]byte, 8), le32(0), le32(n)}, docs...)...)
	}
	tests := []struct {
		name string
		in   []byte
		kind error
	}{
		{"short", make([]byte, 10), ErrTruncated},
		{"count too high", body(2, d), ErrMalformed},
		{"count absurd", body(1<<30, d), ErrMalformed},
		{"count negative", body(-1, d), ErrMalformed},
		{"count too low", body(0, d), ErrMalformed},
		{"doc overruns", body(1, d[:len(d)-1]), ErrTruncated},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseReply(tc.in)
			wantKind(t, err, tc.kind)
		})
	}
}

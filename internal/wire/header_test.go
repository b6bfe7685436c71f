package wire

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

func TestReadMessageRoundTrip(t *testing.T) {
	msg := helloMsg(t)
	h, body, err := ReadMessage(bytes.NewReader(msg), 0)
	wantKind(t, err, nil)
	want := Header{MessageLength: int32(len(msg)), RequestID: 1, OpCode: OpMsg}
	if h != want {
		t.Fatalf("header = %+v, want %+v", h, want)
	}
	if !bytes.Equal(body, msg[HeaderLen:]) {
		t.Fatalf("body differs")
	}
}

func TestReadMessageErrors(t *testing.T) {
	hdr := func(n int32, op OpCode) []byte { return AppendHeader(nil, Header{MessageLength: n, OpCode: op}) }
	hello := helloMsg(t)
	tests := []struct {
		name string
		in   []byte
		max  int32
		kind error // nil: plain I/O error expected (io.EOF)
	}{
		{"truncated header", hello[:10], 0, ErrTruncated},
		{"length below header", hdr(15, OpMsg), 0, ErrMessageTooSmall},
		{"length zero", hdr(0, OpMsg), 0, ErrMessageTooSmall},
		{"length negative", hdr(-1, OpMsg), 0, ErrMessageTooSmall},
		{"length of bare header", hdr(16, OpMsg), 0, ErrMessageTooSmall},
		{"length over default max", hdr(DefaultMaxMessageSize+1, OpMsg), 0, ErrMessageTooLarge},
		{"length over given max", hello, int32(len(hello) - 1), ErrMessageTooLarge},
		{"truncated body", hello[:len(hello)-1], 0, ErrTruncated},
		{"declared huge, sends little", cat(hdr(40_000_000, OpQuery), make([]byte, 100)), 0, ErrTruncated},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ReadMessage(bytes.NewReader(tc.in), tc.max)
			wantKind(t, err, tc.kind)
			if !IsFatal(err) {
				t.Fatalf("ReadMessage error %v must be fatal", err)
			}
		})
	}
}

func TestReadMessageEOF(t *testing.T) {
	_, _, err := ReadMessage(bytes.NewReader(nil), 0)
	if err != io.EOF {
		t.Fatalf("err = %v, want io.EOF", err)
	}
}

// errReader fails after its data.
type errReader struct {
	data []byte
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadMessageIOError(t *testing.T) {
	boom := errors.New("boom")
	msg := helloMsg(t)
	_, _, err := ReadMessage(&errReader{data: msg[:20], err: boom}, 0)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want wrapped boom", err)
	}
}

func TestReadMessageBufReuse(t *testing.T) {
	a, b := helloMsg(t), isMasterQuery(t)
	r := bytes.NewReader(cat(a, b, a))
	buf := make([]byte, 0, 4096)
	for i, want := range [][]byte{a, b, a} {
		h, body, next, err := ReadMessageBuf(r, buf, 0)
		wantKind(t, err, nil)
		if !bytes.Equal(body, want[HeaderLen:]) || int(h.MessageLength) != len(want) {
			t.Fatalf("message %d differs", i)
		}
		if &body[0] != &buf[:1][0] {
			t.Fatalf("message %d: buffer not reused", i)
		}
		buf = next
	}
}

// A body larger than eagerAlloc is read in growing chunks and arrives intact.
func TestReadMessageLarge(t *testing.T) {
	payload := bytes.Repeat([]byte("x"), 3*eagerAlloc+17)
	msg := cat(AppendHeader(nil, Header{MessageLength: int32(HeaderLen + len(payload)), OpCode: OpInsert}), payload)
	_, body, err := ReadMessage(bytes.NewReader(msg), 0)
	wantKind(t, err, nil)
	if !bytes.Equal(body, payload) {
		t.Fatal("large body differs")
	}
}

func TestOpCodeString(t *testing.T) {
	for op, want := range map[OpCode]string{OpMsg: "OP_MSG", OpQuery: "OP_QUERY", OpCode(9): "OpCode(9)"} {
		if got := op.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", op, got, want)
		}
	}
}

package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// OpCode identifies a wire message type.
type OpCode int32

// Op codes (MongoDB wire protocol).
const (
	OpReply       OpCode = 1
	OpUpdate      OpCode = 2001
	OpInsert      OpCode = 2002
	OpQuery       OpCode = 2004
	OpGetMore     OpCode = 2005
	OpDelete      OpCode = 2006
	OpKillCursors OpCode = 2007
	OpCompressed  OpCode = 2012
	OpMsg         OpCode = 2013
)

func (c OpCode) String() string {
	switch c {
	case OpReply:
		return "OP_REPLY"
	case OpUpdate:
		return "OP_UPDATE"
	case OpInsert:
		return "OP_INSERT"
	case OpQuery:
		return "OP_QUERY"
	case OpGetMore:
		return "OP_GETMORE"
	case OpDelete:
		return "OP_DELETE"
	case OpKillCursors:
		return "OP_KILL_CURSORS"
	case OpCompressed:
		return "OP_COMPRESSED"
	case OpMsg:
		return "OP_MSG"
	}
	return fmt.Sprintf("OpCode(%d)", int32(c))
}

const (
	// HeaderLen is the size of the standard message header.
	HeaderLen = 16
	// MinMessageLength is the smallest valid message: every op code has at
	// least one int32 after the header.
	MinMessageLength = HeaderLen + 4
	// DefaultMaxMessageSize is MongoDB's maxMessageSizeBytes.
	DefaultMaxMessageSize int32 = 48_000_000
	// eagerAlloc is the largest body allocated up front; larger bodies grow
	// as bytes arrive, so a peer that declares 48 MB and sends nothing costs
	// little memory.
	eagerAlloc = 1 << 20
)

// Header is the standard message header.
type Header struct {
	MessageLength int32 // total length including the header
	RequestID     int32
	ResponseTo    int32
	OpCode        OpCode
}

// ParseHeader decodes the first HeaderLen bytes of b.
func ParseHeader(b []byte) (Header, error) {
	if len(b) < HeaderLen {
		return Header{}, newErr(ErrTruncated, mongoerr.ProtocolError, true,
			"header needs %d bytes, have %d", HeaderLen, len(b))
	}
	return Header{
		MessageLength: int32(binary.LittleEndian.Uint32(b)),
		RequestID:     int32(binary.LittleEndian.Uint32(b[4:])),
		ResponseTo:    int32(binary.LittleEndian.Uint32(b[8:])),
		OpCode:        OpCode(binary.LittleEndian.Uint32(b[12:])),
	}, nil
}

// AppendHeader appends h to dst.
func AppendHeader(dst []byte, h Header) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(h.MessageLength))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(h.RequestID))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(h.ResponseTo))
	return binary.LittleEndian.AppendUint32(dst, uint32(h.OpCode))
}

// checkLength validates a declared message length against [MinMessageLength, max].
func checkLength(n, maxSize int32) error {
	if maxSize <= 0 {
		maxSize = DefaultMaxMessageSize
	}
	if n < MinMessageLength {
		return newErr(ErrMessageTooSmall, mongoerr.ProtocolError, true,
			"message length %d is invalid: min %d max %d", n, MinMessageLength, maxSize)
	}
	if n > maxSize {
		return newErr(ErrMessageTooLarge, mongoerr.ProtocolError, true,
			"message length %d is invalid: min %d max %d", n, MinMessageLength, maxSize)
	}
	return nil
}

// ReadMessage reads one message from r and returns its header and the body
// after the header, in a freshly allocated slice. maxSize <= 0 means
// DefaultMaxMessageSize. Every error is fatal for the connection; io.EOF is
// returned as is when r ends cleanly before a message starts.
//
// For OP_MSG with the ChecksumPresent flag the CRC-32C is verified here,
// where the header bytes it covers are at hand.
func ReadMessage(r io.Reader, maxSize int32) (Header, []byte, error) {
	h, body, _, err := ReadMessageBuf(r, nil, maxSize)
	return h, body, err
}

// ReadMessageBuf is ReadMessage reading into buf when its capacity suffices.
// It returns the body and the (possibly grown) buffer to pass next time; the
// body aliases that buffer, so it is valid only until buf is reused.
func ReadMessageBuf(r io.Reader, buf []byte, maxSize int32) (Header, []byte, []byte, error) {
	var hb []byte
	if cap(buf) >= HeaderLen { // the header is parsed before the body overwrites it
		hb = buf[:HeaderLen]
	} else {
		hb = make([]byte, HeaderLen)
	}
	if _, err := io.ReadFull(r, hb); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = newErr(ErrTruncated, mongoerr.ProtocolError, true, "connection closed inside a header")
		}
		return Header{}, nil, buf, err
	}
	h, _ := ParseHeader(hb)
	if err := checkLength(h.MessageLength, maxSize); err != nil {
		return h, nil, buf, err
	}
	n := int(h.MessageLength) - HeaderLen
	body, err := readBody(r, buf[:0], n)
	if err != nil {
		return h, nil, buf, err
	}
	if h.OpCode == OpMsg {
		if err := VerifyChecksum(h, body); err != nil {
			return h, nil, body[:0], err
		}
	}
	return h, body, body[:0], nil
}

// readBody reads exactly n bytes, appending to buf. Capacity beyond
// eagerAlloc is only reserved as data arrives.
func readBody(r io.Reader, buf []byte, n int) ([]byte, error) {
	for len(buf) < n {
		if cap(buf) == len(buf) {
			grow := min(n, max(eagerAlloc, 2*cap(buf)))
			nb := make([]byte, len(buf), grow)
			copy(nb, buf)
			buf = nb
		}
		end := min(n, cap(buf))
		m, err := io.ReadFull(r, buf[len(buf):end])
		buf = buf[:len(buf)+m]
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, newErr(ErrTruncated, mongoerr.ProtocolError, true,
					"connection closed after %d of %d body bytes", len(buf), n)
			}
			return nil, fmt.Errorf("wire: reading message body: %w", err)
		}
	}
	return buf, nil
}

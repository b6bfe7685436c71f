package wire

import (
	"bytes"
	"encoding/binary"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// OP_QUERY flag bits (only the ones a server may look at).
const (
	QueryTailableCursor  int32 = 1 << 1
	QuerySecondaryOK     int32 = 1 << 2
	QueryNoCursorTimeout int32 = 1 << 4
	QueryAwaitData       int32 = 1 << 5
	QueryExhaust         int32 = 1 << 6
	QueryPartial         int32 = 1 << 7
)

// OP_REPLY responseFlags bits.
const (
	ReplyCursorNotFound int32 = 1 << 0
	ReplyQueryFailure   int32 = 1 << 1
	ReplyAwaitCapable   int32 = 1 << 3
	replyMinBodyLen           = 4 + 8 + 4 + 4
	queryMinBodyLen           = 4 + 1 + 4 + 4 + 5
)

// Query is a parsed OP_QUERY. Drivers send it only for the first handshake
// (isMaster/hello against "admin.$cmd"); documents alias the parsed bytes.
type Query struct {
	Flags                int32
	FullCollectionName   string // "db.collection", "db.$cmd" for commands
	NumberToSkip         int32
	NumberToReturn       int32
	Query                bson.Raw
	ReturnFieldsSelector bson.Raw // nil when absent
}

// Database returns the part of FullCollectionName before the first dot.
func (q *Query) Database() string {
	db, _, _ := strings.Cut(q.FullCollectionName, ".")
	return db
}

// ParseQuery parses an OP_QUERY body (the bytes after the header).
func ParseQuery(body []byte) (*Query, error) {
	if len(body) < queryMinBodyLen {
		return nil, truncated("OP_QUERY has %d bytes, needs at least %d", len(body), queryMinBodyLen)
	}
	q := &Query{Flags: int32(binary.LittleEndian.Uint32(body))}
	b := body[4:]
	nul := bytes.IndexByte(b, 0)
	if nul < 0 {
		return nil, malformed(mongoerr.ProtocolError, "OP_QUERY collection name is not NUL-terminated")
	}
	q.FullCollectionName, b = string(b[:nul]), b[nul+1:]
	if len(b) < 8 {
		return nil, truncated("OP_QUERY ends inside numberToSkip/numberToReturn")
	}
	q.NumberToSkip = int32(binary.LittleEndian.Uint32(b))
	q.NumberToReturn = int32(binary.LittleEndian.Uint32(b[4:]))
	var err error
	if q.Query, b, err = readDoc(b[8:]); err != nil {
		return nil, err
	}
	if len(b) > 0 {
		if q.ReturnFieldsSelector, b, err = readDoc(b); err != nil {
			return nil, err
		}
	}
	if len(b) > 0 {
		return nil, malformed(mongoerr.ProtocolError, "OP_QUERY has %d trailing bytes", len(b))
	}
	return q, nil
}

// AppendQuery appends a complete OP_QUERY to dst (used by tests and by
// node-to-node clients that must speak to old servers). fields may be nil.
func AppendQuery(dst []byte, requestID int32, q *Query) []byte {
	start := len(dst)
	dst = AppendHeader(dst, Header{RequestID: requestID, OpCode: OpQuery})
	dst = binary.LittleEndian.AppendUint32(dst, uint32(q.Flags))
	dst = append(append(dst, q.FullCollectionName...), 0)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(q.NumberToSkip))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(q.NumberToReturn))
	dst = append(dst, q.Query...)
	dst = append(dst, q.ReturnFieldsSelector...)
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start))
	return dst
}

// Reply is a parsed OP_REPLY.
type Reply struct {
	Flags        int32
	CursorID     int64
	StartingFrom int32
	Docs         []bson.Raw
}

// AppendReply appends a complete OP_REPLY carrying docs to dst.
func AppendReply(dst []byte, requestID, responseTo int32, flags int32, cursorID int64, startingFrom int32, docs ...[]byte) []byte {
	start := len(dst)
	dst = AppendHeader(dst, Header{RequestID: requestID, ResponseTo: responseTo, OpCode: OpReply})
	dst = binary.LittleEndian.AppendUint32(dst, uint32(flags))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(cursorID))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(startingFrom))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(docs)))
	for _, d := range docs {
		dst = append(dst, d...)
	}
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start))
	return dst
}

// ParseReply parses an OP_REPLY body; numberReturned must match the documents.
func ParseReply(body []byte) (*Reply, error) {
	if len(body) < replyMinBodyLen {
		return nil, truncated("OP_REPLY has %d bytes, needs at least %d", len(body), replyMinBodyLen)
	}
	r := &Reply{
		Flags:        int32(binary.LittleEndian.Uint32(body)),
		CursorID:     int64(binary.LittleEndian.Uint64(body[4:])),
		StartingFrom: int32(binary.LittleEndian.Uint32(body[12:])),
	}
	n := int32(binary.LittleEndian.Uint32(body[16:]))
	if n < 0 || int64(n)*5 > int64(len(body)-replyMinBodyLen) {
		return nil, malformed(mongoerr.ProtocolError, "OP_REPLY numberReturned %d does not fit", n)
	}
	b := body[replyMinBodyLen:]
	r.Docs = make([]bson.Raw, 0, n)
	for len(b) > 0 {
		doc, rest, err := readDoc(b)
		if err != nil {
			return nil, err
		}
		r.Docs, b = append(r.Docs, doc), rest
	}
	if int32(len(r.Docs)) != n {
		return nil, malformed(mongoerr.ProtocolError, "OP_REPLY numberReturned %d but has %d documents", n, len(r.Docs))
	}
	return r, nil
}

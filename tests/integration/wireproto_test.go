package integration

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Wire protocol opcodes (MongoDB wire protocol reference).
const (
	opReply = 1
	opQuery = 2004
	opMsg   = 2013
)

// frame builds a message: 16-byte header with the true length, then body.
func frame(reqID, opCode int32, body []byte) []byte {
	b := make([]byte, 16, 16+len(body))
	binary.LittleEndian.PutUint32(b[0:], uint32(16+len(body)))
	binary.LittleEndian.PutUint32(b[4:], uint32(reqID))
	binary.LittleEndian.PutUint32(b[12:], uint32(opCode))
	return append(b, body...)
}

// opMsgBytes builds an OP_MSG with one kind-0 section; with checksum it sets
// flag bit 0 and appends CRC-32C, corrupted when badSum.
func opMsgBytes(reqID int32, cmd bson.D, checksum, badSum bool) []byte {
	doc, err := bson.Marshal(cmd)
	if err != nil {
		panic(err)
	}
	var flags uint32
	if checksum {
		flags = 1
	}
	body := binary.LittleEndian.AppendUint32(nil, flags)
	body = append(append(body, 0), doc...)
	if !checksum {
		return frame(reqID, opMsg, body)
	}
	msg := frame(reqID, opMsg, append(body, 0, 0, 0, 0))
	binary.LittleEndian.PutUint32(msg[0:], uint32(len(msg)))
	sum := crc32.Checksum(msg[:len(msg)-4], crc32.MakeTable(crc32.Castagnoli))
	if badSum {
		sum ^= 0xdeadbeef
	}
	binary.LittleEndian.PutUint32(msg[len(msg)-4:], sum)
	return msg
}

// opQueryBytes builds a legacy OP_QUERY against db.$cmd.
func opQueryBytes(reqID int32, db string, cmd bson.D) []byte {
	doc, err := bson.Marshal(cmd)
	if err != nil {
		panic(err)
	}
	body := binary.LittleEndian.AppendUint32(nil, 0)
	body = append(append(body, db+".$cmd"...), 0)
	body = binary.LittleEndian.AppendUint32(body, 0)
	body = binary.LittleEndian.AppendUint32(body, uint32(0xffffffff)) // numberToReturn -1
	return frame(reqID, opQuery, append(body, doc...))
}

// readReply reads one message and returns its opcode and first document.
func readReply(conn net.Conn, d time.Duration) (int32, bson.D, error) {
	_ = conn.SetReadDeadline(time.Now().Add(d))
	var hdr [16]byte
	if _, err := io.ReadFull(conn, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := int(binary.LittleEndian.Uint32(hdr[0:]))
	op := int32(binary.LittleEndian.Uint32(hdr[12:]))
	if n < 16 || n > 48<<20 {
		return op, nil, fmt.Errorf("reply length %d", n)
	}
	body := make([]byte, n-16)
	if _, err := io.ReadFull(conn, body); err != nil {
		return op, nil, err
	}
	var docBytes []byte
	switch op {
	case opMsg:
		if len(body) < 5 || body[4] != 0 {
			return op, nil, errors.New("OP_MSG reply without a kind-0 section first")
		}
		docBytes = body[5:]
	case opReply:
		if len(body) < 20 {
			return op, nil, errors.New("short OP_REPLY")
		}
		docBytes = body[20:]
	default:
		return op, nil, fmt.Errorf("unexpected reply opcode %d", op)
	}
	if len(docBytes) < 4 {
		return op, nil, errors.New("reply without a document")
	}
	dl := int(binary.LittleEndian.Uint32(docBytes))
	if dl > len(docBytes) || dl < 5 {
		return op, nil, fmt.Errorf("reply document length %d of %d bytes", dl, len(docBytes))
	}
	var doc bson.D
	if err := bson.Unmarshal(docBytes[:dl], &doc); err != nil {
		return op, nil, fmt.Errorf("reply document: %w", err)
	}
	return op, doc, nil
}

// isOK reports whether a reply document has ok: 1 (any numeric type).
func isOK(d bson.D) bool {
	switch v := field(d, "ok").(type) {
	case float64:
		return v == 1
	case int32:
		return v == 1
	case int64:
		return v == 1
	}
	return false
}

package repl

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// rawCommand sends cmd as one OP_MSG to addr on a fresh connection, with
// no $readPreference added (the driver always adds primaryPreferred on
// direct connections, which would hide NotPrimaryNoSecondaryOk).
func rawCommand(addr string, cmd bson.D) (bson.Raw, error) {
	conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	return roundTrip(conn, cmd)
}

// roundTrip writes cmd as one OP_MSG (requestID 1, no flags) to conn and
// reads the reply.
func roundTrip(conn net.Conn, cmd bson.D) (bson.Raw, error) {
	body, err := bson.Marshal(cmd)
	if err != nil {
		return nil, err
	}
	msg := make([]byte, 16, 16+5+len(body))
	binary.LittleEndian.PutUint32(msg[4:], 1)     // requestID
	binary.LittleEndian.PutUint32(msg[12:], 2013) // OP_MSG
	msg = append(msg, 0, 0, 0, 0, 0)              // flagBits, section kind 0
	msg = append(msg, body...)
	binary.LittleEndian.PutUint32(msg[0:], uint32(len(msg)))
	if _, err := conn.Write(msg); err != nil {
		return nil, err
	}
	return readReply(conn)
}

func readReply(r io.Reader) (bson.Raw, error) {
	var hdr [16]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, fmt.Errorf("read reply header: %w", err)
	}
	n := int(binary.LittleEndian.Uint32(hdr[0:]))
	if op := binary.LittleEndian.Uint32(hdr[12:]); op != 2013 || n < 21 {
		return nil, fmt.Errorf("reply opcode %d length %d, want OP_MSG", op, n)
	}
	rest := make([]byte, n-16)
	if _, err := io.ReadFull(r, rest); err != nil {
		return nil, fmt.Errorf("read reply body: %w", err)
	}
	if rest[4] != 0 {
		return nil, fmt.Errorf("reply section kind %d, want 0", rest[4])
	}
	doc := bson.Raw(rest[5:])
	return doc, doc.Validate()
}

// replyCode is a reply's ok and code ("" codeName when absent).
func replyCode(r bson.Raw) (ok float64, code int32, codeName string) {
	if v, err := r.LookupErr("ok"); err == nil {
		ok, _ = v.AsFloat64OK()
	}
	if v, err := r.LookupErr("code"); err == nil {
		code, _ = v.Int32OK()
	}
	if v, err := r.LookupErr("codeName"); err == nil {
		codeName, _ = v.StringValueOK()
	}
	return ok, code, codeName
}

// replyLabels is a reply's errorLabels.
func replyLabels(r bson.Raw) []string {
	var out []string
	v, err := r.LookupErr("errorLabels")
	if err != nil {
		return nil
	}
	arr, ok := v.ArrayOK()
	if !ok {
		return nil
	}
	vals, _ := arr.Values()
	for _, l := range vals {
		if s, ok := l.StringValueOK(); ok {
			out = append(out, s)
		}
	}
	return out
}

package wire

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// OP_MSG flag bits. Bits 0-15 are required: a receiver must reject bits it
// does not know. Bits 16-31 are optional.
const (
	ChecksumPresent uint32 = 1 << 0
	MoreToCome      uint32 = 1 << 1
	ExhaustAllowed  uint32 = 1 << 16

	requiredFlagMask = 0xffff
	knownFlags       = ChecksumPresent | MoreToCome
)

// Section kinds.
const (
	sectionBody     byte = 0
	sectionSequence byte = 1
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Msg is a parsed OP_MSG. Body and Sequences alias the parsed bytes.
type Msg struct {
	Flags     uint32
	Body      bson.Raw
	Sequences []Sequence

	// bodyIndex is how many sequences preceded the body section, so Append
	// reproduces the section order it was parsed with.
	bodyIndex int
}

// Sequence is a kind-1 section: a named run of documents (e.g. "documents"
// of an insert), equivalent to an array field of the body.
type Sequence struct {
	Identifier string
	Docs       []bson.Raw
}

// Sequence returns the sequence named id, or nil.
func (m *Msg) Sequence(id string) *Sequence {
	for i := range m.Sequences {
		if m.Sequences[i].Identifier == id {
			return &m.Sequences[i]
		}
	}
	return nil
}

// ParseMsg parses an OP_MSG body (the bytes after the header). When
// ChecksumPresent is set the trailing 4 bytes are the checksum; ParseMsg
// strips them but cannot verify them, since they also cover the header:
// ReadMessage verifies them, and VerifyChecksum serves decompressed messages.
func ParseMsg(body []byte) (*Msg, error) {
	if len(body) < 4 {
		return nil, truncated("OP_MSG has %d bytes, flags need 4", len(body))
	}
	m := &Msg{Flags: binary.LittleEndian.Uint32(body)}
	if m.Flags&requiredFlagMask&^knownFlags != 0 {
		return nil, newErr(ErrIllegalFlags, mongoerr.IllegalOpMsgFlag, true,
			"message contains illegal flags value: 0b%032b", m.Flags)
	}
	sections := body[4:]
	if m.Flags&ChecksumPresent != 0 {
		if len(sections) < 4 {
			return nil, truncated("OP_MSG flags a checksum but has no room for it")
		}
		sections = sections[:len(sections)-4]
	}
	if err := m.parseSections(sections); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Msg) parseSections(b []byte) error {
	haveBody := false
	for len(b) > 0 {
		kind := b[0]
		b = b[1:]
		var err error
		switch kind {
		case sectionBody:
			if haveBody {
				return malformed(mongoerr.OpMsgMultipleBodies, "multiple body sections in message")
			}
			haveBody = true
			m.bodyIndex = len(m.Sequences)
			m.Body, b, err = readDoc(b)
		case sectionSequence:
			b, err = m.parseSequence(b)
		default:
			return malformed(mongoerr.OpMsgUnknownSectionKind, "unknown section kind %d", kind)
		}
		if err != nil {
			return err
		}
	}
	if !haveBody {
		return malformed(mongoerr.OpMsgMissingBody, "OP_MSG messages must have a body")
	}
	return m.checkDuplicateFields()
}

// parseSequence parses a kind-1 section and returns the bytes after it.
func (m *Msg) parseSequence(b []byte) ([]byte, error) {
	if len(b) < 4 {
		return nil, truncated("document sequence size needs 4 bytes, have %d", len(b))
	}
	size := int32(binary.LittleEndian.Uint32(b))
	if size < 5 || int64(size) > int64(len(b)) {
		return nil, truncated("document sequence size %d does not fit in %d bytes", size, len(b))
	}
	sec, rest := b[4:size], b[size:]
	nul := bytes.IndexByte(sec, 0)
	if nul < 0 {
		return nil, malformed(mongoerr.ProtocolError, "document sequence identifier is not NUL-terminated")
	}
	seq := Sequence{Identifier: string(sec[:nul])}
	if m.Sequence(seq.Identifier) != nil {
		return nil, malformed(mongoerr.OpMsgDuplicateSequence, "duplicate document sequence: %s", seq.Identifier)
	}
	for docs := sec[nul+1:]; len(docs) > 0; {
		var doc bson.Raw
		var err error
		if doc, docs, err = readDoc(docs); err != nil {
			return nil, err
		}
		seq.Docs = append(seq.Docs, doc)
	}
	m.Sequences = append(m.Sequences, seq)
	return rest, nil
}

// checkDuplicateFields rejects a sequence whose identifier also names a
// field of the body: the command would see the same argument twice.
// TODO(#2): MongoDB also looks along arrays for dotted identifiers.
func (m *Msg) checkDuplicateFields() error {
	for _, s := range m.Sequences {
		if _, err := m.Body.LookupErr(strings.Split(s.Identifier, ".")...); err == nil {
			return malformed(mongoerr.OpMsgDuplicateField,
				"duplicate field between body and document sequence %s", s.Identifier)
		}
	}
	return nil
}

// readDoc splits one BSON document off the front of b, checking only its
// length prefix and terminating NUL.
func readDoc(b []byte) (bson.Raw, []byte, error) {
	if len(b) < 4 {
		return nil, nil, truncated("document length needs 4 bytes, have %d", len(b))
	}
	n := int32(binary.LittleEndian.Uint32(b))
	if n < 5 || int64(n) > int64(len(b)) {
		return nil, nil, truncated("document length %d does not fit in %d bytes", n, len(b))
	}
	if b[n-1] != 0 {
		return nil, nil, malformed(mongoerr.InvalidBSON, "document does not end in a NUL byte")
	}
	return bson.Raw(b[:n:n]), b[n:], nil
}

// VerifyChecksum checks the CRC-32C of an OP_MSG with ChecksumPresent set;
// for other messages it returns nil. h is the message's header; its
// MessageLength is recomputed from body, so a header rebuilt after
// decompression works too.
func VerifyChecksum(h Header, body []byte) error {
	if len(body) < 4 || binary.LittleEndian.Uint32(body)&ChecksumPresent == 0 {
		return nil
	}
	if len(body) < 8 {
		return truncated("OP_MSG flags a checksum but has no room for it")
	}
	h.MessageLength = int32(HeaderLen + len(body))
	var hb [HeaderLen]byte
	AppendHeader(hb[:0], h)
	sum := crc32.Update(crc32.Checksum(hb[:], castagnoli), castagnoli, body[:len(body)-4])
	if want := binary.LittleEndian.Uint32(body[len(body)-4:]); sum != want {
		return newErr(ErrChecksum, mongoerr.ChecksumMismatch, true, "OP_MSG checksum does not match contents")
	}
	return nil
}

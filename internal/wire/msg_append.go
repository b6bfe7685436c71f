package wire

import (
	"encoding/binary"
	"hash/crc32"
)

// AppendMsg appends a complete OP_MSG (header, flags, one kind-0 section
// holding body) to dst. With ChecksumPresent in flags the CRC-32C is
// computed and appended. It allocates only when dst must grow.
func AppendMsg(dst []byte, requestID, responseTo int32, flags uint32, body []byte) []byte {
	start := len(dst)
	dst = AppendHeader(dst, Header{RequestID: requestID, ResponseTo: responseTo, OpCode: OpMsg})
	dst = binary.LittleEndian.AppendUint32(dst, flags)
	dst = append(dst, sectionBody)
	dst = append(dst, body...)
	return finishMsg(dst, start, flags)
}

// Append appends m as a complete OP_MSG, body and sequences in the order
// they were parsed (body first for a Msg built by hand).
func (m *Msg) Append(dst []byte, requestID, responseTo int32) []byte {
	start := len(dst)
	dst = AppendHeader(dst, Header{RequestID: requestID, ResponseTo: responseTo, OpCode: OpMsg})
	dst = binary.LittleEndian.AppendUint32(dst, m.Flags)
	bodyAt := min(max(m.bodyIndex, 0), len(m.Sequences))
	for i := range m.Sequences {
		if i == bodyAt {
			dst = appendBodySection(dst, m.Body)
		}
		dst = m.Sequences[i].append(dst)
	}
	if bodyAt == len(m.Sequences) {
		dst = appendBodySection(dst, m.Body)
	}
	return finishMsg(dst, start, m.Flags)
}

func appendBodySection(dst []byte, body []byte) []byte {
	return append(append(dst, sectionBody), body...)
}

// append writes s as a kind-1 section.
func (s *Sequence) append(dst []byte) []byte {
	dst = append(dst, sectionSequence)
	sizeAt := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = append(append(dst, s.Identifier...), 0)
	for _, d := range s.Docs {
		dst = append(dst, d...)
	}
	binary.LittleEndian.PutUint32(dst[sizeAt:], uint32(len(dst)-sizeAt))
	return dst
}

// finishMsg reserves the checksum if flagged, patches the length and fills
// in the checksum over everything before it.
func finishMsg(dst []byte, start int, flags uint32) []byte {
	if flags&ChecksumPresent != 0 {
		dst = append(dst, 0, 0, 0, 0)
	}
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start))
	if flags&ChecksumPresent != 0 {
		end := len(dst) - 4
		binary.LittleEndian.PutUint32(dst[end:], crc32.Checksum(dst[start:end], castagnoli))
	}
	return dst
}

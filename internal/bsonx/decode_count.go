package bsonx

import (
	"bytes"
	"encoding/binary"
)

// levelSize is what one document level needs: its element count and the
// bytes its keys, short strings and binData take in its arena.
type levelSize struct {
	n, text, bin int
}

// measure sizes a document body (the bytes between the length prefix and
// the terminator) so the decoder allocates each bson.D or bson.A and its
// arena once. It trusts length prefixes and stops at the first element it
// cannot size: the result is only a capacity hint (the arena falls back
// to separate allocations when it runs out), and the decoder that follows
// reports any malformation.
// Keys count only if keys is set (array keys are dropped).
func measure(body []byte, keys bool) levelSize {
	var s levelSize
	for pos := 0; pos < len(body); s.n++ {
		k := bytes.IndexByte(body[pos+1:], 0)
		if body[pos] == 0 || k < 0 {
			return s
		}
		t, start := body[pos], pos+2+k
		size := valueSize(t, body[start:])
		if size < 0 {
			s.n++
			return s
		}
		if keys {
			s.text += k
		}
		switch t {
		case TypeString, TypeJavaScript, TypeSymbol:
			if size-5 <= maxArenaString {
				s.text += size - 5
			}
		case TypeBinData:
			s.bin += size - 5
		}
		pos = start + size
	}
	return s
}

// valueSize is the size of the value of type t at the start of b, or -1
// when it cannot tell.
func valueSize(t byte, b []byte) int {
	if n, ok := scalarSize(t); ok {
		return n
	}
	switch t {
	case TypeString, TypeJavaScript, TypeSymbol:
		return prefixed(b, 4)
	case TypeObject, TypeArray, TypeCodeWithScope:
		return prefixed(b, 0)
	case TypeBinData:
		return prefixed(b, 5)
	case TypeBool:
		return 1
	case TypeRegex:
		p := bytes.IndexByte(b, 0)
		if p < 0 {
			return -1
		}
		o := bytes.IndexByte(b[p+1:], 0)
		if o < 0 {
			return -1
		}
		return p + o + 2
	case TypeDBPointer:
		if s := prefixed(b, 4); s >= 0 {
			return s + 12
		}
	}
	return -1
}

// prefixed returns extra plus the int32 length at the start of b, or -1.
func prefixed(b []byte, extra int) int {
	if len(b) < 4 {
		return -1
	}
	l := int(int32(binary.LittleEndian.Uint32(b)))
	if l < 0 {
		return -1
	}
	return l + extra
}

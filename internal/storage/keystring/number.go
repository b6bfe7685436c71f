package keystring

import (
	"encoding/binary"
	"fmt"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// Number class bytes, in bsonx.NumClass order.
const classBase byte = 0x01

// TODO(#2): every finite non-zero number takes 13 bytes (class, exponent,
// 8 fraction bytes, flag); trimming trailing zero fraction bytes behind a
// length would shrink small integers to ~5 bytes. Changing it changes the
// on-disk format, so do it before the format version is frozen.

// expBias makes a binary or decimal exponent a sortable uint16; bsonx
// exponents stay within ±21000.
const expBias = 1 << 15

// appendNumber appends the class byte and, for finite non-zero values, the
// magnitude (inverted when negative, so larger magnitudes sort first).
func appendNumber(dst []byte, n bsonx.Number) []byte {
	dst = append(dst, classBase+byte(n.Class))
	if n.Class != bsonx.NumNeg && n.Class != bsonx.NumPos {
		return dst
	}
	start := len(dst)
	dst = binary.BigEndian.AppendUint16(dst, uint16(int(n.Exp)+expBias))
	dst = binary.BigEndian.AppendUint64(dst, n.Frac)
	if !n.Inexact {
		dst = append(dst, 0)
	} else {
		dst = append(dst, 1)
		dst = binary.BigEndian.AppendUint16(dst, uint16(int(n.DecExp)+expBias))
		dst = append(append(dst, n.DecDigits...), 0)
	}
	if n.Class == bsonx.NumNeg {
		invert(dst[start:])
	}
	return dst
}

// readNumber decodes a number body.
func (r *reader) readNumber() (any, error) {
	c, err := r.byte()
	if err != nil {
		return nil, err
	}
	n := bsonx.Number{Class: bsonx.NumClass(c - classBase)}
	if c < classBase || n.Class > bsonx.NumPosInf {
		return nil, fmt.Errorf("keystring: bad number class 0x%02x", c)
	}
	if n.Class == bsonx.NumNeg || n.Class == bsonx.NumPos {
		if err := r.readMagnitude(&n); err != nil {
			return nil, err
		}
	}
	return bsonx.NumberValue(n)
}

func (r *reader) readMagnitude(n *bsonx.Number) error {
	if n.Class == bsonx.NumNeg {
		r.mask = ^r.mask
		defer func() { r.mask = ^r.mask }()
	}
	b, err := r.take(11)
	if err != nil {
		return err
	}
	n.Exp = int32(binary.BigEndian.Uint16(b)) - expBias
	n.Frac = binary.BigEndian.Uint64(b[2:])
	switch b[10] {
	case 0:
		return nil
	case 1:
		n.Inexact = true
	default:
		return fmt.Errorf("keystring: bad exactness flag 0x%02x", b[10])
	}
	return r.readDecimalForm(n)
}

func (r *reader) readDecimalForm(n *bsonx.Number) error {
	b, err := r.take(2)
	if err != nil {
		return err
	}
	n.DecExp = int32(binary.BigEndian.Uint16(b)) - expBias
	var digits []byte
	for {
		c, err := r.byte()
		if err != nil {
			return err
		}
		if c == 0 {
			break
		}
		if c < '0' || c > '9' || len(digits) >= 34 {
			return fmt.Errorf("keystring: bad decimal digits")
		}
		digits = append(digits, c)
	}
	n.DecDigits = string(digits)
	return nil
}

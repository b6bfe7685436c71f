package query

import (
	"sort"

	"github.com/relaydb/relaydb/internal/bsonx"
	"go.mongodb.org/mongo-driver/v2/bson"
)

type bitsOp int

const (
	bitsAllSet bitsOp = iota
	bitsAllClear
	bitsAnySet
	bitsAnyClear
)

var bitsOps = map[string]bitsOp{
	"$bitsAllSet": bitsAllSet, "$bitsAllClear": bitsAllClear,
	"$bitsAnySet": bitsAnySet, "$bitsAnyClear": bitsAnyClear,
}

// bitsMatcher implements the $bits* operators over integral numbers (two's
// complement, sign-extended beyond bit 63) and BinData (little-endian bit
// order, zero beyond its length).
type bitsMatcher struct {
	op        bitsOp
	positions []int
}

func (m bitsMatcher) matchValue(v any, missing bool) bool {
	if missing {
		return false
	}
	bit, ok := bitReader(v)
	if !ok {
		return false
	}
	want := m.op == bitsAllSet || m.op == bitsAnySet
	all := m.op == bitsAllSet || m.op == bitsAllClear
	for _, p := range m.positions {
		hit := bit(p) == want
		if all && !hit {
			return false
		}
		if !all && hit {
			return true
		}
	}
	return all
}

func bitReader(v any) (func(int) bool, bool) {
	if b, ok := v.(bson.Binary); ok {
		return func(p int) bool {
			i := p / 8
			return i < len(b.Data) && b.Data[i]>>(p%8)&1 == 1
		}, true
	}
	if !bsonx.IsNumber(v) {
		return nil, false
	}
	n, ok := bsonx.AsInt64(v)
	if !ok {
		return nil, false
	}
	return func(p int) bool {
		if p >= 64 {
			return n < 0
		}
		return uint64(n)>>p&1 == 1
	}, true
}

func parseBits(name string, op bitsOp, arg any) (bitsMatcher, error) {
	m := bitsMatcher{op: op}
	switch x := arg.(type) {
	case bson.Binary:
		for i, b := range x.Data {
			for j := 0; j < 8; j++ {
				if b>>j&1 == 1 {
					m.positions = append(m.positions, i*8+j)
				}
			}
		}
		return m, nil
	case bson.A:
		return m, m.addPositions(name, x)
	}
	if !bsonx.IsNumber(arg) {
		return m, badValue("%s takes an Array, a number, or a BinData but received: %s: %s", name, name, show(arg))
	}
	mask, ok := bsonx.AsInt64(arg)
	if !ok {
		return m, badValue("Expected an integer: %s: %v", name, arg)
	}
	if mask < 0 {
		return m, badValue("Expected a positive number in: %s: %v", name, arg)
	}
	for p := 0; p < 63; p++ {
		if mask>>p&1 == 1 {
			m.positions = append(m.positions, p)
		}
	}
	return m, nil
}

func (m *bitsMatcher) addPositions(name string, a bson.A) error {
	for _, x := range a {
		if !bsonx.IsNumber(x) {
			return badValue("bit positions must be an integer but got: %s", show(x))
		}
		p, ok := bsonx.AsInt64(x)
		if !ok {
			return badValue("bit positions must be an integer but got: %v", x)
		}
		if p < 0 || p > 1<<31-1 {
			return badValue("bit positions must be >= 0 but got: %v", x)
		}
		m.positions = append(m.positions, int(p))
	}
	sort.Ints(m.positions)
	return nil
}

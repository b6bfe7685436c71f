package keystring_test

import (
	"bytes"
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/storage/keystring"
)

// builder turns fuzz bytes into a BSON value deterministically.
type builder struct{ b []byte }

func (g *builder) next() byte {
	if len(g.b) == 0 {
		return 0
	}
	c := g.b[0]
	g.b = g.b[1:]
	return c
}

func (g *builder) bytes(max int) []byte {
	n := int(g.next()) % (max + 1)
	n = min(n, len(g.b))
	out := append([]byte{}, g.b[:n]...)
	g.b = g.b[n:]
	return out
}

func (g *builder) u64() uint64 {
	var x uint64
	for i := 0; i < 8; i++ {
		x = x<<8 | uint64(g.next())
	}
	return x
}

func (g *builder) value(depth int) any {
	switch k := g.next() % 16; {
	case k == 0:
		return int32(g.u64())
	case k == 1:
		return int64(g.u64())
	case k == 2:
		return math.Float64frombits(g.u64())
	case k == 3:
		return bson.NewDecimal128(g.u64(), g.u64())
	case k == 4:
		return float64(int8(g.next())) / 4
	case k == 5:
		return string(g.bytes(6))
	case k == 6 && depth > 0:
		d := bson.D{}
		for i := g.next() % 4; i > 0; i-- {
			d = append(d, bson.E{Key: string(bytes.ReplaceAll(g.bytes(3), []byte{0}, nil)), Value: g.value(depth - 1)})
		}
		return d
	case k == 7 && depth > 0:
		a := bson.A{}
		for i := g.next() % 4; i > 0; i-- {
			a = append(a, g.value(depth-1))
		}
		return a
	case k == 8:
		return bson.Binary{Subtype: g.next(), Data: g.bytes(4)}
	case k == 9:
		return bson.DateTime(g.u64())
	case k == 10:
		return bson.Timestamp{T: uint32(g.u64()), I: uint32(g.u64())}
	case k == 11:
		return g.next()%2 == 0
	}
	return []any{nil, bson.MinKey{}, bson.MaxKey{}, bson.Undefined{}, bson.Symbol("a")}[g.next()%5]
}

// FuzzKeystring: two values built from the fuzz bytes round-trip, and their
// encodings order as bsonx.Compare orders them.
func FuzzKeystring(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add([]byte{3, 0x30, 0x40, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0x43, 0x30, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{6, 3, 1, 'a', 5, 2, 'x', 0, 7, 2, 0, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &builder{b: data}
		a, b := g.value(3), g.value(3)
		checkRoundTrip(t, a)
		checkRoundTrip(t, b)
		checkPair(t, a, b)
		if bsonx.Compare(a, b) == 0 && !bytes.Equal(keystring.Key(a), keystring.Key(b)) {
			t.Fatalf("equal values encode differently: %s vs %s", show(a), show(b))
		}
		_, _, _ = keystring.Decode(data, false) // must not panic on garbage
		_, _, _ = keystring.Decode(data, true)
	})
}

func BenchmarkAppendValue(b *testing.B) {
	cases := []struct {
		name string
		v    any
	}{
		{"string", "user:000000012345"},
		{"objectID", bson.NewObjectID()},
		{"int64", int64(123456789)},
		{"double", 3.25},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			buf := make([]byte, 0, 64)
			for i := 0; i < b.N; i++ {
				buf = keystring.AppendValue(buf[:0], c.v, false)
			}
		})
	}
}

package keystring_test

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/bsonx/bsonxtest"
	"github.com/relaydb/relaydb/internal/storage/keystring"
)

func sign(i int) int {
	switch {
	case i < 0:
		return -1
	case i > 0:
		return 1
	}
	return 0
}

func show(v any) string {
	if d, ok := v.(bson.Decimal128); ok {
		return "dec(" + d.String() + ")"
	}
	return fmt.Sprintf("%T(%#v)", v, v)
}

// checkPair verifies the encoding order of a and b in both directions.
func checkPair(t *testing.T, a, b any) {
	t.Helper()
	want := bsonx.Compare(a, b)
	for _, desc := range []bool{false, true} {
		ka := keystring.AppendValue(nil, a, desc)
		kb := keystring.AppendValue(nil, b, desc)
		got := bytes.Compare(ka, kb)
		if desc {
			got = -got
		}
		if got != want {
			t.Fatalf("desc=%v: bytes order %d, Compare %d for %s vs %s\n%x\n%x",
				desc, got, want, show(a), show(b), ka, kb)
		}
	}
}

// checkRoundTrip decodes v's encoding (with a suffix) in both directions.
func checkRoundTrip(t *testing.T, v any) {
	t.Helper()
	for _, desc := range []bool{false, true} {
		k := keystring.AppendValue(nil, v, desc)
		k = append(k, 0xAB, 0xCD)
		got, rest, err := keystring.Decode(k, desc)
		if err != nil {
			t.Fatalf("desc=%v: Decode(%s): %v (%x)", desc, show(v), err, k)
		}
		if !bytes.Equal(rest, []byte{0xAB, 0xCD}) || bsonx.Compare(v, got) != 0 {
			t.Fatalf("desc=%v: %s decoded as %s, rest %x", desc, show(v), show(got), rest)
		}
		again := keystring.AppendValue(nil, got, desc)
		if !bytes.Equal(again, k[:len(k)-2]) {
			t.Fatalf("desc=%v: re-encoding %s differs", desc, show(got))
		}
	}
}

func TestAscendingEdges(t *testing.T) {
	groups := bsonxtest.Ascending()
	var all []any
	for _, g := range groups {
		for _, v := range g {
			checkRoundTrip(t, v)
			if !bytes.Equal(keystring.Key(v), keystring.Key(g[0])) {
				t.Errorf("equal values encode differently: %s vs %s", show(v), show(g[0]))
			}
		}
		all = append(all, g...)
	}
	for _, a := range all {
		for _, b := range all {
			checkPair(t, a, b)
		}
	}
}

func TestRandomOrder(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	for i := 0; i < 4000; i++ {
		a, b := bsonxtest.Random(r, 3), bsonxtest.Random(r, 3)
		if r.Intn(3) == 0 {
			a, b = bsonxtest.RandomNumber(r), bsonxtest.RandomNumber(r)
		}
		checkRoundTrip(t, a)
		checkPair(t, a, b)
	}
}

// TestCompound: concatenated encodings order as tuples, so a shorter value
// never bleeds into the next component.
func TestCompound(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	for i := 0; i < 2000; i++ {
		a1, a2 := bsonxtest.Random(r, 2), bsonxtest.Random(r, 2)
		b1, b2 := bsonxtest.Random(r, 2), bsonxtest.Random(r, 2)
		want := bsonx.Compare(a1, b1)
		if want == 0 {
			want = -bsonx.Compare(a2, b2) // second component descending
		}
		ka := keystring.AppendValue(keystring.AppendValue(nil, a1, false), a2, true)
		kb := keystring.AppendValue(keystring.AppendValue(nil, b1, false), b2, true)
		if got := bytes.Compare(ka, kb); got != want {
			t.Fatalf("seed %d: (%s, %s) vs (%s, %s): bytes %d, want %d",
				seed, show(a1), show(a2), show(b1), show(b2), got, want)
		}
	}
}

func TestBrackets(t *testing.T) {
	groups := bsonxtest.Ascending()
	for _, g := range groups {
		for _, v := range g {
			for _, h := range groups {
				w := h[0]
				k := keystring.Key(w)
				in := bytes.Compare(k, keystring.BracketLow(v)) >= 0 &&
					bytes.Compare(k, keystring.BracketHigh(v)) < 0
				same := bsonx.CanonicalType(v) == bsonx.CanonicalType(w)
				if in != same {
					t.Fatalf("%s in bracket of %s: %v, same type bracket: %v", show(w), show(v), in, same)
				}
			}
		}
	}
	lo, hi := keystring.AppendMinKey(nil, false), keystring.AppendMaxKey(nil, false)
	for _, g := range groups {
		k := keystring.Key(g[0])
		if bytes.Compare(lo, k) > 0 || bytes.Compare(k, hi) > 0 {
			t.Errorf("%s outside [MinKey, MaxKey]", show(g[0]))
		}
	}
}

func TestCanonicalDecodeTypes(t *testing.T) {
	tests := []struct{ in, want any }{
		{int32(5), int64(5)},
		{bson.Symbol("s"), "s"},
		{[]any{int32(1)}, bson.A{int64(1)}},
		{bson.D{{Key: "a", Value: 2.0}}, bson.D{{Key: "a", Value: int64(2)}}},
		{0.5, 0.5},
	}
	for _, tt := range tests {
		got, _, err := keystring.Decode(keystring.Key(tt.in), false)
		if err != nil || fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", tt.want) {
			t.Errorf("Decode(Key(%s)) = %#v, %v; want %#v", show(tt.in), got, err, tt.want)
		}
	}
}

func TestDecodeCorrupt(t *testing.T) {
	good := keystring.Key(bson.D{{Key: "a", Value: bson.A{"x", 1.5, bson.Binary{Data: []byte{1, 2}}}}})
	for i := 0; i < len(good); i++ {
		if _, _, err := keystring.Decode(good[:i], false); err == nil {
			t.Errorf("truncated at %d: no error", i)
		}
	}
	for _, b := range [][]byte{{0x01}, {0x1E, 0x09}, {0x28, 'a', 0, 7}, {0x5A, 2}} {
		if _, _, err := keystring.Decode(b, false); err == nil {
			t.Errorf("Decode(%x): no error", b)
		}
	}
}

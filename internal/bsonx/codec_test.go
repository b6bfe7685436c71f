package bsonx_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand"
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/bsonx/bsonxtest"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// allTypes is one document holding every BSON type.
func allTypes() bson.D {
	d := bson.D{}
	for i, g := range bsonxtest.Ascending() {
		if g[0] == nil || g[0] == (bson.Null{}) {
			d = append(d, bson.E{Key: "null", Value: nil})
			continue
		}
		d = append(d, bson.E{Key: string(rune('a' + i%26)), Value: g[0]})
	}
	return d
}

func TestDecodeRoundTrip(t *testing.T) {
	doc := allTypes()
	raw, err := bsonx.Encode(doc)
	if err != nil {
		t.Fatal(err)
	}
	got, err := bsonx.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if bsonx.Compare(doc, got) != 0 {
		t.Fatalf("round trip changed the document:\n%v\n%v", doc, got)
	}
	for i := range doc {
		if bsonx.TypeByte(doc[i].Value) != bsonx.TypeByte(got[i].Value) {
			t.Errorf("field %d: type %#x came back as %#x", i, bsonx.TypeByte(doc[i].Value), bsonx.TypeByte(got[i].Value))
		}
	}
	again, _ := bsonx.Encode(got)
	if !bytes.Equal(raw, again) {
		t.Fatal("re-encoding differs")
	}
}

func le32(n int) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(n)) }

func TestDecodeInvalid(t *testing.T) {
	good, _ := bsonx.Encode(bson.D{{Key: "s", Value: "hi"}})
	tests := []struct {
		name string
		raw  []byte
		code mongoerr.Code
	}{
		{"empty", nil, mongoerr.InvalidBSON},
		{"short", []byte{5, 0, 0}, mongoerr.InvalidBSON},
		{"length too big", append(le32(6), 0), mongoerr.InvalidBSON},
		{"length too small", append(le32(4), 0, 0, 0, 0, 0), mongoerr.InvalidBSON},
		{"trailing bytes", append(append([]byte{}, good...), 0), mongoerr.InvalidBSON},
		{"no terminator", append(le32(5), 1), mongoerr.InvalidBSON},
		{"bad type", append(le32(8), 0x42, 'a', 0, 0), mongoerr.InvalidBSON},
		{"unterminated key", append(le32(7), 0x0A, 'a', 0), mongoerr.InvalidBSON},
		{"string length", append(append(le32(13), 0x02, 'a', 0), append(le32(9), 'x', 0)...), mongoerr.InvalidBSON},
		{"bool 2", append(le32(9), 0x08, 'a', 0, 2, 0), mongoerr.InvalidBSON},
		{"truncated int32", append(le32(9), 0x10, 'a', 0, 1, 0), mongoerr.InvalidBSON},
		{"eoo inside", append(le32(8), 0x00, 'a', 0, 0), mongoerr.InvalidBSON},
	}
	for _, tt := range tests {
		_, err := bsonx.Decode(tt.raw)
		if !mongoerr.Is(err, tt.code) {
			t.Errorf("%s: got %v, want code %d", tt.name, err, tt.code)
		}
	}
}

func TestDecodeDepth(t *testing.T) {
	nest := func(n int) []byte {
		d := bson.D{{Key: "x", Value: int32(1)}}
		for i := 1; i < n; i++ {
			d = bson.D{{Key: "x", Value: d}}
		}
		raw, _ := bsonx.Encode(d)
		return raw
	}
	if _, err := bsonx.Decode(nest(bsonx.MaxWireDepth)); err != nil {
		t.Errorf("depth %d rejected: %v", bsonx.MaxWireDepth, err)
	}
	if _, err := bsonx.Decode(nest(bsonx.MaxWireDepth + 1)); !mongoerr.Is(err, mongoerr.Overflow) {
		t.Errorf("too deep: got %v, want Overflow", err)
	}
	if _, err := bsonx.DecodeMaxDepth(nest(11), 10); !mongoerr.Is(err, mongoerr.Overflow) {
		t.Errorf("DecodeMaxDepth: got %v, want Overflow", err)
	}
}

func TestDecodeRandomDocs(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 500; i++ {
		doc := bsonxtest.RandomDoc(r, 3)
		raw, err := bsonx.Encode(doc)
		if err != nil {
			t.Fatal(err)
		}
		got, err := bsonx.Decode(raw)
		if err != nil || bsonx.Compare(doc, got) != 0 {
			t.Fatalf("round trip of %v: %v, %v", doc, got, err)
		}
		if again, _ := bsonx.Encode(got); !bytes.Equal(raw, again) {
			t.Fatalf("bytes changed:\n%x\n%x", raw, again)
		}
	}
}

// FuzzDecode: Decode never panics and fails only with InvalidBSON or
// Overflow; what it accepts re-encodes to a fixpoint that decodes to an
// equal document. The bytes may differ only by the driver's normalizations
// (array keys renumbered, regex options sorted), so byte equality is
// checked for canonical input in TestDecodeRandomDocs.
func FuzzDecode(f *testing.F) {
	seed, _ := bsonx.Encode(allTypes())
	f.Add(seed)
	f.Add([]byte{5, 0, 0, 0, 0})
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 20; i++ {
		raw, _ := bsonx.Encode(bsonxtest.RandomDoc(r, 3))
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		doc, err := bsonx.Decode(raw)
		if err != nil {
			var me *mongoerr.Error
			if !errors.As(err, &me) || (me.Code != mongoerr.InvalidBSON && me.Code != mongoerr.Overflow) {
				t.Fatalf("error is not InvalidBSON/Overflow: %v", err)
			}
			return
		}
		out, err := bsonx.Encode(doc)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		doc2, err := bsonx.Decode(out)
		if err != nil {
			t.Fatalf("re-decode of %x: %v", out, err)
		}
		out2, _ := bsonx.Encode(doc2)
		if !bytes.Equal(out, out2) || (bsonx.Compare(doc, doc2) != 0 && !hasUnsortedRegex(doc)) {
			t.Fatalf("not a fixpoint:\n in %x\nout %x\nout2 %x", raw, out, out2)
		}
		if len(out) > len(raw) && !hasUnsortedRegex(doc) {
			t.Fatalf("re-encoding grew: in %x out %x", raw, out)
		}
	})
}

// hasUnsortedRegex reports a regex whose options the driver will sort when
// encoding, the one normalization Encode applies.
func hasUnsortedRegex(v any) bool {
	switch x := v.(type) {
	case bson.Regex:
		return !slices.IsSorted([]byte(x.Options))
	case bson.D:
		for _, e := range x {
			if hasUnsortedRegex(e.Value) {
				return true
			}
		}
	case bson.A:
		return slices.ContainsFunc(x, hasUnsortedRegex)
	case bson.CodeWithScope:
		return hasUnsortedRegex(x.Scope)
	}
	return false
}

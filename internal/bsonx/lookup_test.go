package bsonx_test

import (
	"bytes"
	"math/rand"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/bsonx/bsonxtest"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// lookupDecoded is the first value named key in doc.
func lookupDecoded(doc bson.D, key string) (any, bool) {
	for _, e := range doc {
		if e.Key == key {
			return e.Value, true
		}
	}
	return nil, false
}

func TestLookupMatchesDecode(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	keys := []string{"", "a", "b", "ab", "\xff", "a.b", "0", "missing"}
	for i := 0; i < 2000; i++ {
		raw := mustRaw(bsonxtest.RandomDoc(r, 3))
		doc, err := bsonx.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			want, wok := lookupDecoded(doc, k)
			got, ok, err := bsonx.Lookup(raw, k)
			if err != nil || ok != wok || !same(got, want) {
				t.Fatalf("Lookup(%x, %q) = %#v, %v, %v; want %#v, %v", raw, k, got, ok, err, want, wok)
			}
		}
	}
}

func TestLookupMalformed(t *testing.T) {
	tests := []struct {
		name string
		raw  []byte
	}{
		{"short", []byte{5, 0, 0}},
		{"string past end", cat(le32(14), []byte{2, 's', 0}, le32(99), []byte{'x', 0}, []byte{0, 0})},
		{"unterminated key", cat(le32(7), []byte{0x0A, 'k', 0})},
		{"unknown type", cat(le32(8), []byte{0x14, 'k', 0, 0})},
	}
	for _, tt := range tests {
		if _, ok, err := bsonx.Lookup(tt.raw, "zz"); ok || !mongoerr.Is(err, mongoerr.InvalidBSON) {
			t.Errorf("%s: ok=%v err=%v, want InvalidBSON", tt.name, ok, err)
		}
	}
}

func TestValidateMatchesDecode(t *testing.T) {
	r := rand.New(rand.NewSource(10))
	for i := 0; i < 3000; i++ {
		raw := mutate(r, mustRaw(bsonxtest.RandomDoc(r, 3)))
		_, derr := bsonx.Decode(bytes.Clone(raw))
		verr := bsonx.Validate(raw, bsonx.MaxWireDepth)
		if (derr == nil) != (verr == nil) || (derr != nil && derr.Error() != verr.Error()) {
			t.Fatalf("%x: Validate %v, Decode %v", raw, verr, derr)
		}
	}
}

func BenchmarkLookupID(b *testing.B) {
	raw := storedDoc()
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, err := bsonx.Lookup(raw, "_id"); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	for _, bd := range benchDocs {
		raw := mustRaw(bd.doc())
		b.Run(bd.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := bsonx.Validate(raw, bsonx.MaxWireDepth); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

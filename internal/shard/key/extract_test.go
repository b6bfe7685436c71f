package key

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func mustHash(t *testing.T, v any) int64 {
	t.Helper()
	h, err := Hash(v)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestExtract(t *testing.T) {
	one := int32(1)
	ab := MustParse(bson.D{{Key: "a", Value: one}, {Key: "b.c", Value: one}})
	hashed := MustParse(bson.D{{Key: "a.b", Value: "hashed"}})
	for _, tc := range []struct {
		p    Pattern
		doc  bson.D
		want string
	}{
		{ab, bson.D{{Key: "a", Value: int32(5)}, {Key: "b", Value: bson.D{{Key: "c", Value: "x"}}}}, `{ a: 5, b.c: "x" }`},
		{ab, bson.D{{Key: "b", Value: bson.D{{Key: "c", Value: "x"}}}, {Key: "a", Value: int32(5)}}, `{ a: 5, b.c: "x" }`},
		{ab, bson.D{}, "{ a: null, b.c: null }"},
		{ab, bson.D{{Key: "a", Value: nil}, {Key: "b", Value: int32(3)}}, "{ a: null, b.c: null }"},
		{ab, bson.D{{Key: "a", Value: bson.D{{Key: "x", Value: one}}}, {Key: "b", Value: bson.D{}}}, "{ a: { x: 1 }, b.c: null }"},
		{ab, bson.D{{Key: "a", Value: bson.MaxKey{}}}, "{ a: MaxKey, b.c: null }"},
		{hashed, bson.D{{Key: "a", Value: bson.D{{Key: "b", Value: int64(0)}}}}, "{ a.b: 4854801880128277513 }"},
		{hashed, bson.D{}, "{ a.b: 2338878944348059895 }"}, // hash of null
	} {
		k, err := tc.p.Extract(tc.doc)
		if err != nil || Format(k) != tc.want {
			t.Errorf("%s.Extract(%s) = %s, %v; want %s", tc.p, Format(tc.doc), Format(k), err, tc.want)
		}
	}
	k, _ := hashed.Extract(bson.D{{Key: "a", Value: bson.D{{Key: "b", Value: "abc"}}}})
	if k[0].Value != mustHash(t, "abc") {
		t.Errorf("hashed key %v is not Hash(\"abc\")", k)
	}
}

func TestExtractRefusesArrays(t *testing.T) {
	p := MustParse(bson.D{{Key: "a.b", Value: int32(1)}})
	for _, doc := range []bson.D{
		{{Key: "a", Value: bson.A{}}},
		{{Key: "a", Value: bson.A{bson.D{{Key: "b", Value: int32(1)}}}}},
		{{Key: "a", Value: bson.D{{Key: "b", Value: bson.A{int32(1)}}}}},
		{{Key: "a", Value: bson.D{{Key: "b", Value: []any{}}}}},
	} {
		_, err := p.Extract(doc)
		me, ok := err.(*mongoerr.Error)
		if !ok || me.Code != mongoerr.ShardKeyNotFound ||
			me.Msg != "Shard key cannot contain array values or array descendants." {
			t.Errorf("Extract(%s) = %v; want ShardKeyNotFound", Format(doc), err)
		}
	}
	// An array elsewhere in the document is fine.
	if _, err := p.Extract(bson.D{{Key: "c", Value: bson.A{}}, {Key: "a", Value: bson.D{{Key: "d", Value: bson.A{}}}}}); err != nil {
		t.Errorf("array off the key path: %v", err)
	}
}

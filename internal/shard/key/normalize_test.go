package key

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestNormalize(t *testing.T) {
	p := MustParse(bson.D{{Key: "a", Value: int32(1)}, {Key: "b.c", Value: "hashed"}})
	for _, tc := range []struct {
		k    bson.D
		want string // "" when refused
	}{
		{bson.D{{Key: "a", Value: int32(1)}, {Key: "b.c", Value: int64(2)}}, "{ a: 1, b.c: 2 }"},
		{bson.D{{Key: "b.c", Value: int64(2)}, {Key: "a", Value: int32(1)}}, "{ a: 1, b.c: 2 }"},
		{bson.D{{Key: "a", Value: int32(1)}}, ""},
		{bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: bson.D{{Key: "c", Value: int64(2)}}}}, ""},
		{bson.D{{Key: "a", Value: bson.A{}}, {Key: "b.c", Value: int64(2)}}, ""},
		{bson.D{{Key: "a", Value: int32(1)}, {Key: "b.c", Value: int64(2)}, {Key: "x", Value: 1}}, ""},
	} {
		k, ok := p.Normalize(tc.k)
		if got := Format(k); ok != (tc.want != "") || ok && got != tc.want {
			t.Errorf("Normalize(%s) = %s, %v; want %q", Format(tc.k), got, ok, tc.want)
		}
	}
}

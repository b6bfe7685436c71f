package key

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestParseValid(t *testing.T) {
	dec1, _ := bson.ParseDecimal128("1")
	for _, tc := range []struct {
		doc    bson.D
		hashed int
		prefix bool
	}{
		{bson.D{{Key: "a", Value: int32(1)}}, -1, false},
		{bson.D{{Key: "a", Value: 1.0}}, -1, false},
		{bson.D{{Key: "a", Value: 1.5}}, -1, false}, // safeNumberInt truncates
		{bson.D{{Key: "a", Value: int64(1)}}, -1, false},
		{bson.D{{Key: "a", Value: dec1}}, -1, false},
		{bson.D{{Key: "a", Value: int32(1)}, {Key: "b.c", Value: int32(1)}}, -1, false},
		{bson.D{{Key: "a", Value: "hashed"}}, 0, true},
		{bson.D{{Key: "a", Value: "hashed"}, {Key: "b", Value: int32(1)}}, 0, true},
		{bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: "hashed"}}, 1, false},
		{bson.D{{Key: "x$", Value: int32(1)}}, -1, false},
		{bson.D{{Key: "x.$id", Value: int32(1)}}, -1, false},
		{bson.D{{Key: "x.$ref", Value: int32(1)}, {Key: "y.$db", Value: int32(1)}}, -1, false},
		{bson.D{{Key: "ab", Value: int32(1)}, {Key: "a", Value: int32(1)}}, -1, false},
	} {
		p, err := Parse(tc.doc)
		if err != nil {
			t.Errorf("Parse(%s): %v", Format(tc.doc), err)
			continue
		}
		if p.HashedField() != tc.hashed || p.HasHashedPrefix() != tc.prefix || p.Len() != len(tc.doc) {
			t.Errorf("Parse(%s): hashed %d prefix %v len %d", Format(tc.doc), p.HashedField(), p.HasHashedPrefix(), p.Len())
		}
	}
}

func TestParseInvalid(t *testing.T) {
	one := int32(1)
	for _, tc := range []struct {
		doc bson.D
		msg string
	}{
		{bson.D{}, "Shard key is empty"},
		{bson.D{{Key: "", Value: one}}, "Field  is empty"},
		{bson.D{{Key: "a..b", Value: one}}, "Field a..b contains empty parts"},
		{bson.D{{Key: "a.", Value: one}}, "Field a. contains empty parts"},
		{bson.D{{Key: ".a", Value: one}}, "Field .a contains empty parts"},
		{bson.D{{Key: "$x", Value: one}}, "Field $x contains parts that start with '$'"},
		{bson.D{{Key: "x.$y", Value: one}}, "Field x.$y contains parts that start with '$'"},
		{bson.D{{Key: "$**", Value: one}}, "Field $** contains parts that start with '$'"},
		{bson.D{{Key: "$id", Value: one}}, "Field $id contains parts that start with '$'"},
		{bson.D{{Key: "a", Value: int32(-1)}},
			"Shard key { a: -1 }numerical fields must be set to a value of 1 (ascending). Failed to parse field a"},
		{bson.D{{Key: "a", Value: int32(2)}}, "Shard key { a: 2 }numerical fields must be set to a value of 1 (ascending). Failed to parse field a"},
		{bson.D{{Key: "a", Value: "2d"}}, `Shard key { a: "2d" }numerical fields must be set to a value of 1 (ascending). Failed to parse field a`},
		{bson.D{{Key: "a", Value: true}}, "Shard key { a: true }numerical fields must be set to a value of 1 (ascending). Failed to parse field a"},
		{bson.D{{Key: "a", Value: "hashed"}, {Key: "b", Value: "hashed"}},
			`Shard key { a: "hashed", b: "hashed" } can contain at most one 'hashed' field. Failed to parse field b`},
		{bson.D{{Key: "a", Value: one}, {Key: "a.b", Value: one}}, "Shard key { a: 1, a.b: 1 } contains conflicting paths a and a.b"},
		{bson.D{{Key: "a.b", Value: one}, {Key: "a", Value: one}}, "Shard key { a.b: 1, a: 1 } contains conflicting paths a.b and a"},
		{bson.D{{Key: "a", Value: one}, {Key: "a", Value: one}}, "Shard key { a: 1, a: 1 } contains conflicting paths a and a"},
	} {
		_, err := Parse(tc.doc)
		me, ok := err.(*mongoerr.Error)
		if !ok || me.Code != mongoerr.BadValue || me.Msg != tc.msg {
			t.Errorf("Parse(%s) = %v; want BadValue %q", Format(tc.doc), err, tc.msg)
		}
	}
}

func TestPatternBounds(t *testing.T) {
	p := MustParse(bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: "hashed"}})
	if got := Format(p.GlobalMin()); got != "{ a: MinKey, b: MinKey }" {
		t.Errorf("GlobalMin = %s", got)
	}
	if got := Format(p.GlobalMax()); got != "{ a: MaxKey, b: MaxKey }" {
		t.Errorf("GlobalMax = %s", got)
	}
	if got := p.String(); got != `{ a: 1, b: "hashed" }` {
		t.Errorf("String = %s", got)
	}
}

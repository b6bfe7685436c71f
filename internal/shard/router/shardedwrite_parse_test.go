package router

import (
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
)

// TestUpsertShardKey: a null equality on a key field pins it to null, so
// the upsert's key is the key of the document it would insert.
func TestUpsertShardKey(t *testing.T) {
	compound := key.MustParse(bson.D{{Key: "a", Value: 1}, {Key: "b", Value: "hashed"}})
	hashedID := key.MustParse(bson.D{{Key: "_id", Value: "hashed"}})
	d := func(kv ...any) bson.D {
		out := bson.D{}
		for i := 0; i < len(kv); i += 2 {
			out = append(out, bson.E{Key: kv[i].(string), Value: kv[i+1]})
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		p      key.Pattern
		filter bson.D
		doc    bson.D // the document whose key it must be; nil: no key
	}{
		{"id null", hashedID, d("_id", nil), d("_id", nil)},
		{"id $eq null", hashedID, d("_id", d("$eq", bson.Null{})), d("_id", nil)},
		{"id value", hashedID, d("_id", int32(5)), d("_id", int32(5))},
		{"compound null and value", compound, d("a", nil, "b", int32(3)), d("a", nil, "b", int32(3))},
		{"compound value and null", compound, d("b", nil, "a", "x"), d("a", "x", "b", nil)},
		{"null with a range elsewhere", compound, d("a", nil, "b", d("$gt", int32(1))), nil},
		{"$gt null", hashedID, d("_id", d("$gt", nil)), nil},
		{"$in null", hashedID, d("_id", d("$in", bson.A{nil})), nil},
		{"no key", hashedID, d("x", nil), nil},
	} {
		got, ok := upsertShardKey(tc.p, tc.filter)
		if tc.doc == nil {
			if ok {
				t.Errorf("%s: upsertShardKey = %v, want none", tc.name, got)
			}
			continue
		}
		want, err := tc.p.Extract(tc.doc)
		if err != nil {
			t.Fatal(err)
		}
		if !ok || key.Compare(got, want) != 0 {
			t.Errorf("%s: upsertShardKey = %v %v, want %v", tc.name, got, ok, want)
		}
	}
}

// TestParseWrite: a sharded write is refused whole with the data node's
// parse error.
func TestParseWrite(t *testing.T) {
	stmt := bson.D{{Key: "q", Value: bson.D{}}, {Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 1}}}}}}
	ok := &call{name: "update", cmd: bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{stmt}}, {Key: "$db", Value: "d"}}}
	if err := parseWrite(ok); err != nil {
		t.Fatalf("a valid update: %v", err)
	}
	sorted := append(slices.Clone(stmt), bson.E{Key: "sort", Value: bson.D{{Key: "_id", Value: 1}}})
	bad := &call{name: "update", cmd: bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{stmt, sorted}}}}
	err := parseWrite(bad)
	if !mongoerr.Is(err, mongoerr.IDLUnknownField) || mongoerr.From(err).Msg != "BSON field 'update.updates.sort' is an unknown field." {
		t.Fatalf("update with sort: %v", err)
	}
	noLimit := &call{name: "delete", cmd: bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}}}}}}
	if err := parseWrite(noLimit); !mongoerr.Is(err, mongoerr.IDLMissingField) {
		t.Fatalf("delete without limit: %v", err)
	}
}

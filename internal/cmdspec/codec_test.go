package cmdspec

import (
	"bytes"
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

type testFind struct {
	Cmd        `cmd:"find" roles:"primary,secondary,router"`
	Collection CollName `cmd:",command"`
	Filter     bson.D   `cmd:"filter"`
	Skip       int64    `cmd:"skip"`
	BatchSize  *int64   `cmd:"batchSize"`
	Single     bool     `cmd:"singleBatch"`
	Hint       Hint     `cmd:"hint"`
	Pipeline   bson.A   `cmd:"pipeline"`
	Docs       []bson.D `cmd:"documents"`
	Key        string   `cmd:"key"`
	Mode       *any     `cmd:"mode"`
}

type testStmt struct {
	Q      bson.D       `cmd:"q,required"`
	U      Modification `cmd:"u,required"`
	Upsert bool         `cmd:"upsert"`
	AF     Filters      `cmd:"arrayFilters"`
}

type testUpdate struct {
	Cmd        `cmd:"update" roles:"primary,router"`
	Collection CollName   `cmd:",command"`
	Updates    []testStmt `cmd:"updates,required"`
	Ordered    *bool      `cmd:"ordered"`
}

type testInline struct {
	Cmd   `cmd:"setParameter" roles:"primary,secondary"`
	Value any    `cmd:",command"`
	Rest  bson.D `cmd:",inline"`
}

type testCursor struct {
	Cmd        `cmd:"getMore" roles:"primary,secondary,router"`
	ID         Long   `cmd:",command"`
	Collection string `cmd:"collection,required"`
}

func d(kv ...any) bson.D {
	out := bson.D{}
	for i := 0; i < len(kv); i += 2 {
		out = append(out, bson.E{Key: kv[i].(string), Value: kv[i+1]})
	}
	return out
}

func TestDecodeErrors(t *testing.T) {
	stmt := d("q", bson.D{}, "u", d("$set", d("a", 1)))
	cases := []struct {
		name string
		dst  any
		cmd  bson.D
		code mongoerr.Code
		msg  string
	}{
		{"unknown", &testFind{}, d("find", "c", "bogus", 1), 40415, "BSON field 'find.bogus' is an unknown field."},
		{"wrongTypeDoc", &testFind{}, d("find", "c", "filter", bson.A{1}), 14, "BSON field 'find.filter' is the wrong type 'array', expected type 'object'"},
		{"wrongTypeInt", &testFind{}, d("find", "c", "skip", "x"), 14, "BSON field 'find.skip' is the wrong type 'string', expected types '[long, int, decimal, double]'"},
		{"fractional", &testFind{}, d("find", "c", "skip", 1.5), 2, "Expected field skip to be an integer, but got 1.5"},
		{"wrongTypeBool", &testFind{}, d("find", "c", "singleBatch", "x"), 14, "BSON field 'find.singleBatch' is the wrong type 'string', expected type 'bool'"},
		{"nullArray", &testFind{}, d("find", "c", "pipeline", nil), 14, "BSON field 'find.pipeline' is the wrong type 'null', expected type 'array'"},
		{"docElement", &testFind{}, d("find", "c", "documents", bson.A{bson.D{}, 3}), 14, "BSON field 'find.documents.1' is the wrong type 'int', expected type 'object'"},
		{"nullString", &testFind{}, d("find", "c", "key", nil), 14, "BSON field 'find.key' is the wrong type 'null', expected type 'string'"},
		{"collName", &testFind{}, d("find", 1), 73, "collection name has invalid type int"},
		{"hint", &testFind{}, d("find", "c", "hint", 1), 9, "hint must be a string or an object"},
		{"missing", &testUpdate{}, d("update", "c"), 40414, "BSON field 'update.updates' is missing but a required field"},
		{"stmtUnknown", &testUpdate{}, d("update", "c", "updates", bson.A{append(stmt, bson.E{Key: "bogus", Value: 1})}), 40415, "BSON field 'update.updates.bogus' is an unknown field."},
		{"stmtMissing", &testUpdate{}, d("update", "c", "updates", bson.A{d("q", bson.D{})}), 40414, "BSON field 'update.updates.u' is missing but a required field"},
		{"stmtType", &testUpdate{}, d("update", "c", "updates", bson.A{d("q", 1, "u", bson.D{})}), 14, "BSON field 'update.updates.q' is the wrong type 'int', expected type 'object'"},
		{"stmtNotDoc", &testUpdate{}, d("update", "c", "updates", bson.A{1}), 14, "BSON field 'update.updates.0' is the wrong type 'int', expected type 'object'"},
		{"stmtsNotArray", &testUpdate{}, d("update", "c", "updates", int32(5)), 14, "BSON field 'update.updates' is the wrong type 'int', expected type 'array'"},
		{"modification", &testUpdate{}, d("update", "c", "updates", bson.A{d("q", bson.D{}, "u", 1)}), 9, "Update argument must be either an object or an array"},
		{"filters", &testUpdate{}, d("update", "c", "updates", bson.A{append(stmt, bson.E{Key: "arrayFilters", Value: bson.A{1}})}), 14, "BSON field 'update.updates.arrayFilters' is the wrong type 'int', expected type 'object'"},
		{"long", &testCursor{}, d("getMore", int32(1), "collection", "c"), 14, "BSON field 'getMore.getMore' is the wrong type 'int', expected type 'long'"},
		{"aliasName", &testFind{}, d("FIND", "c", "filter", 1), 14, "BSON field 'FIND.filter' is the wrong type 'int', expected type 'object'"},
		{"aliasUnknown", &testFind{}, d("FIND", "c", "x", 1), 40415, "BSON field 'find.x' is an unknown field."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Decode(tc.cmd, tc.dst)
			me := mongoerr.From(err)
			if me == nil || me.Code != tc.code || me.Msg != tc.msg {
				t.Fatalf("got %v, want %d %q", err, tc.code, tc.msg)
			}
		})
	}
}

func TestDecode(t *testing.T) {
	var f testFind
	cmd := d("find", "c", "$db", "test", "filter", d("a", 1), "filter", d("a", 2), "skip", 3.0, "batchSize", int32(0),
		"singleBatch", int32(1), "hint", bson.D{}, "mode", nil, "lsid", d("id", 1))
	if err := Decode(cmd, &f); err != nil {
		t.Fatal(err)
	}
	want := testFind{Collection: "c", Filter: d("a", 1), Skip: 3, Single: true}
	want.Generic = d("$db", "test", "lsid", d("id", 1))
	zero := int64(0)
	want.BatchSize = &zero
	var null any
	want.Mode = &null
	if !reflect.DeepEqual(f, want) {
		t.Fatalf("got %+v\nwant %+v", f, want)
	}
	var g testFind
	if err := Decode(d("find", "c", "batchSize", nil, "filter", nil), &g); err != nil || g.BatchSize != nil || g.Filter != nil || g.Mode != nil {
		t.Fatalf("null as absent: %+v %v", g, err)
	}
	var in testInline
	if err := Decode(d("setParameter", 1, "x", 1, "comment", "c"), &in); err != nil || len(in.Rest) != 1 || len(in.Generic) != 1 {
		t.Fatalf("inline: %+v %v", in, err)
	}
	if err := For(&in).CheckUnknown(d("setParameter", 1, "anything", 1)); err != nil {
		t.Fatal(err)
	}
}

func TestEncode(t *testing.T) {
	up := testUpdate{Collection: "c", Updates: []testStmt{{Q: d("a", 1), U: Modification{d("$set", d("b", 2))}, AF: Filters{d("x", 1)}}}}
	up.Generic = d("$db", "test")
	got, err := Encode(&up)
	if err != nil {
		t.Fatal(err)
	}
	want := d("update", "c", "updates", bson.A{d("q", d("a", 1), "u", d("$set", d("b", 2)), "arrayFilters", bson.A{d("x", 1)})}, "$db", "test")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	var back testUpdate
	if err := Decode(got, &back); err != nil || !reflect.DeepEqual(back, up) {
		t.Fatalf("round trip: %+v %v", back, err)
	}
}

func TestDecodeNeedsCmd(t *testing.T) {
	var stmt testStmt
	if err := Decode(d("q", bson.D{}, "$db", "x"), &stmt); err == nil || mongoerr.From(err).Code != mongoerr.InternalError {
		t.Fatalf("decoding into a struct without Cmd: %v", err)
	}
}

func TestSpec(t *testing.T) {
	s := For(testFind{})
	if s.Name != "find" || !s.Roles.Has(RolePrimary|RoleSecondary|RoleRouter) || s.Roles.Has(RoleUnauthenticated) {
		t.Fatalf("spec %+v", s)
	}
	if got := s.Fields(); !reflect.DeepEqual(got, []string{"filter", "skip", "batchSize", "singleBatch", "hint", "pipeline", "documents", "key", "mode"}) {
		t.Fatalf("fields %v", got)
	}
	if For(testInline{}).Fields() != nil {
		t.Fatal("inline spec lists fields")
	}
	if s.Roles.String() != "primary,secondary,router" {
		t.Fatal(s.Roles.String())
	}
}

// roundTrip decodes cmd into a new value of dst's type; when that succeeds
// it checks that encoding and decoding again is stable.
func roundTrip(t *testing.T, cmd bson.D, dst any) {
	v := reflect.New(reflect.TypeOf(dst).Elem()).Interface()
	if Decode(cmd, v) != nil {
		return
	}
	enc1, err := Encode(v)
	if err != nil {
		t.Fatalf("encode %v: %v", cmd, err)
	}
	v2 := reflect.New(reflect.TypeOf(dst).Elem()).Interface()
	if err := Decode(enc1, v2); err != nil {
		t.Fatalf("decode of %v failed: %v (from %v)", enc1, err, cmd)
	}
	enc2, err := Encode(v2)
	if err != nil {
		t.Fatal(err)
	}
	b1, err1 := bson.Marshal(enc1)
	b2, err2 := bson.Marshal(enc2)
	if err1 != nil || err2 != nil || !bytes.Equal(b1, b2) {
		t.Fatalf("unstable: %v -> %v -> %v", cmd, enc1, enc2)
	}
}

func FuzzDecode(f *testing.F) {
	seeds := []bson.D{
		d("find", "c", "filter", d("a", 1), "skip", int64(2), "batchSize", int32(5), "hint", "a_1", "mode", nil),
		d("update", "c", "updates", bson.A{d("q", bson.D{}, "u", bson.A{d("$set", d("a", 1))}, "upsert", true)}, "ordered", false),
		d("getMore", int64(7), "collection", "c", "$db", "t"),
		d("setParameter", 1, "x", 2.5),
		d("find", "c", "documents", bson.A{bson.D{}}, "pipeline", bson.A{}, "key", ""),
	}
	for _, s := range seeds {
		b, _ := bson.Marshal(s)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var cmd bson.D
		if bson.Unmarshal(raw, &cmd) != nil || len(cmd) == 0 {
			return
		}
		for _, dst := range []any{&testFind{}, &testUpdate{}, &testInline{}, &testCursor{}} {
			roundTrip(t, cmd, dst)
		}
	})
}

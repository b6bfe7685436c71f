package query

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	_ "github.com/relaydb/relaydb/internal/js" // registers the JavaScript engine
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestWhere(t *testing.T) {
	docs := []bson.D{
		{{Key: "_id", Value: int32(1)}, {Key: "x", Value: int32(1)}},
		{{Key: "_id", Value: int32(2)}, {Key: "x", Value: int32(5)}},
		{{Key: "_id", Value: int32(3)}, {Key: "x", Value: "a"}},
	}
	for _, tc := range []struct {
		filter bson.D
		want   []int32
	}{
		{bson.D{{Key: "$where", Value: "this.x < 3"}}, []int32{1}},
		{bson.D{{Key: "$where", Value: bson.JavaScript("function() { return this.x == 'a' }")}}, []int32{3}},
		{bson.D{{Key: "x", Value: bson.D{{Key: "$gt", Value: 0}}}, {Key: "$where", Value: "return this.x > 3"}}, []int32{2}},
		{bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: "$where", Value: "obj._id == 1"}}, bson.D{{Key: "x", Value: "a"}}}}}, []int32{1, 3}},
	} {
		m, err := CompileOptions(tc.filter, Options{})
		if err != nil {
			t.Fatalf("%v: %v", tc.filter, err)
		}
		var got []int32
		for _, d := range docs {
			if m.Match(d) {
				got = append(got, d[0].Value.(int32))
			}
		}
		if m.Err() != nil || len(got) != len(tc.want) || (len(got) > 0 && got[0] != tc.want[0]) {
			t.Errorf("%v matched %v (err %v), want %v", tc.filter, got, m.Err(), tc.want)
		}
	}
}

func TestWhereRefused(t *testing.T) {
	where := bson.E{Key: "$where", Value: "true"}
	for _, tc := range []struct {
		name   string
		filter bson.D
		opts   Options
		plain  bool // compiled with Compile (validators, partial indexes)
		code   mongoerr.Code
		msg    string
	}{
		{"in $match", bson.D{where}, Options{NoWhere: true}, false, mongoerr.BadValue, "$where is not allowed in this context"},
		{"under $and in $match", bson.D{{Key: "$and", Value: bson.A{bson.D{where}}}}, Options{NoWhere: true}, false, mongoerr.BadValue, "$where is not allowed in this context"},
		{"Compile", bson.D{where}, Options{}, true, mongoerr.BadValue, "$where is not allowed in this context"},
		{"on a field", bson.D{{Key: "a", Value: bson.D{where}}}, Options{}, false, mongoerr.BadValue, "$where cannot be applied to a field"},
		{"in $elemMatch", bson.D{{Key: "a", Value: bson.D{{Key: "$elemMatch", Value: bson.D{where}}}}}, Options{}, false, mongoerr.BadValue, "$where can only be applied to the top-level document"},
		{"CodeWScope", bson.D{{Key: "$where", Value: bson.CodeWithScope{Code: "true", Scope: bson.D{}}}}, Options{}, false, mongoerr.JSWhereCodeWScope, "$where no longer supports deprecated BSON type CodeWScope"},
		{"bad type", bson.D{{Key: "$where", Value: int32(5)}}, Options{}, false, mongoerr.BadValue, "$where got bad type"},
		{"empty", bson.D{{Key: "$where", Value: ""}}, Options{}, false, mongoerr.BadValue, "code for $where cannot be empty"},
		{"syntax error", bson.D{{Key: "$where", Value: "this.x <"}}, Options{}, false, mongoerr.JSInterpreterFailure, ""},
	} {
		var err error
		if tc.plain {
			_, err = Compile(tc.filter)
		} else {
			_, err = CompileOptions(tc.filter, tc.opts)
		}
		me := mongoerr.From(err)
		if me == nil || me.Code != tc.code || (tc.msg != "" && me.Msg != tc.msg) {
			t.Errorf("%s: err = %v, want %d %q", tc.name, err, tc.code, tc.msg)
		}
	}
}

// TestWhereError: an exception fails the evaluation; the matcher stops
// matching and reports it.
func TestWhereError(t *testing.T) {
	m, err := CompileOptions(bson.D{{Key: "$where", Value: "if (this.x == 2) throw new Error('boom'); return true"}}, Options{Vars: expr.NewVars(nil, time.Now())})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Match(bson.D{{Key: "x", Value: 1.0}}) {
		t.Fatal("x=1 did not match")
	}
	if m.Match(bson.D{{Key: "x", Value: 2.0}}) || m.Match(bson.D{{Key: "x", Value: 1.0}}) {
		t.Fatal("matched after the exception")
	}
	if me := mongoerr.From(m.Err()); me == nil || me.Code != mongoerr.JSInterpreterFailure {
		t.Errorf("Err = %v, want JSInterpreterFailure", m.Err())
	}
}

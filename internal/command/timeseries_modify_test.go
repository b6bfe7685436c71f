package command

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func tsd(kv ...any) bson.D {
	out := bson.D{}
	for i := 0; i < len(kv); i += 2 {
		out = append(out, bson.E{Key: kv[i].(string), Value: kv[i+1]})
	}
	return out
}

func TestBucketFilter(t *testing.T) {
	tests := []struct {
		name    string
		in, out bson.D
		code    mongoerr.Code
	}{
		{"field", tsd("a.b", 1), tsd("data.a.b", 1), 0},
		{"operators stay relative", tsd("a", tsd("$elemMatch", tsd("x", 1))), tsd("data.a", tsd("$elemMatch", tsd("x", 1))), 0},
		{"logical", tsd("$or", bson.A{tsd("a", 1), tsd("$and", bson.A{tsd("b", 2)})}),
			tsd("$or", bson.A{tsd("data.a", 1), tsd("$and", bson.A{tsd("data.b", 2)})}), 0},
		{"expr", tsd("$expr", tsd("$gt", bson.A{"$a", "$$ROOT.b", "$$x", tsd("$literal", "$c")})),
			tsd("$expr", tsd("$gt", bson.A{"$data.a", "$data.b", "$$x", tsd("$literal", "$c")})), 0},
		{"comment", tsd("$comment", "hi", "_id", 3), tsd("$comment", "hi", "data._id", 3), 0},
		{"jsonSchema", tsd("$jsonSchema", tsd()), nil, mongoerr.NotImplemented},
	}
	for _, tc := range tests {
		got, err := bucketFilter(tc.in)
		if tc.code != 0 {
			if !mongoerr.Is(err, tc.code) {
				t.Errorf("%s: err %v, want %d", tc.name, err, tc.code)
			}
			continue
		}
		if err != nil || bsonx.Compare(got, tc.out) != 0 {
			t.Errorf("%s: got %v %v, want %v", tc.name, got, err, tc.out)
		}
	}
}

func TestTranslateUpdate(t *testing.T) {
	multi := func(q bson.D, u any) exec.UpdateStmt { return exec.UpdateStmt{Q: q, U: u, Multi: true} }
	tests := []struct {
		name string
		s    exec.UpdateStmt
		meta string
		q, u bson.D
		code mongoerr.Code
	}{
		{"meta set", multi(tsd("m.k", 1), tsd("$set", tsd("m.k", 2))), "m", tsd("data.m.k", 1), tsd("$set", tsd("data.m.k", 2)), 0},
		{"rename within meta", multi(tsd("m", 1), tsd("$rename", tsd("m.a", "m.b"))), "m", tsd("data.m", 1), tsd("$rename", tsd("data.m.a", "data.m.b")), 0},
		{"rename out of meta", multi(tsd("m", 1), tsd("$rename", tsd("m.a", "x"))), "m", nil, nil, mongoerr.InvalidOptions},
		{"not multi", exec.UpdateStmt{Q: tsd("m", 1), U: tsd("$set", tsd("m", 2))}, "m", nil, nil, mongoerr.InvalidOptions},
		{"upsert", exec.UpdateStmt{Q: tsd("m", 1), U: tsd("$set", tsd("m", 2)), Multi: true, Upsert: true}, "m", nil, nil, mongoerr.InvalidOptions},
		{"query off meta", multi(tsd("v", 1), tsd("$set", tsd("m", 2))), "m", nil, nil, mongoerr.InvalidOptions},
		{"modify off meta", multi(tsd("m", 1), tsd("$set", tsd("mx", 2))), "m", nil, nil, mongoerr.InvalidOptions},
		{"replacement", multi(tsd("m", 1), tsd("m", 2)), "m", nil, nil, mongoerr.InvalidOptions},
		{"pipeline", multi(tsd("m", 1), bson.A{tsd("$set", tsd("m", 2))}), "m", nil, nil, mongoerr.InvalidOptions},
		{"no metaField", multi(tsd(), tsd("$set", tsd("m", 2))), "", nil, nil, mongoerr.InvalidOptions},
	}
	for _, tc := range tests {
		got, err := translateUpdate(tc.s, tc.meta)
		if tc.code != 0 {
			if !mongoerr.Is(err, tc.code) {
				t.Errorf("%s: err %v, want %d", tc.name, err, tc.code)
			}
			continue
		}
		if err != nil || bsonx.Compare(got.Q, tc.q) != 0 || bsonx.Compare(got.U, tc.u) != 0 {
			t.Errorf("%s: got %v %v (%v), want %v %v", tc.name, got.Q, got.U, err, tc.q, tc.u)
		}
	}
}

// TestRunTranslated: bad statements are write errors at their index; the
// engine sees the good ones renumbered, with the command's stmtIds.
func TestRunTranslated(t *testing.T) {
	bad := []error{nil, errors.New("x"), nil}
	var ran []int
	var ids []int32
	run := func(idx []int, r *exec.Retry) *exec.WriteResult {
		ran, ids = idx, r.StmtIDs
		return &exec.WriteResult{N: int64(len(idx)), Errors: []exec.WriteError{{Index: 1, Err: mongoerr.New(mongoerr.BadValue, "y")}}}
	}
	res := runTranslated(bad, false, &exec.Retry{}, run)
	if len(ran) != 2 || ran[1] != 2 || ids[1] != 2 || len(res.Errors) != 2 || res.Errors[0].Index != 1 || res.Errors[1].Index != 2 {
		t.Fatalf("unordered: ran %v ids %v errors %+v", ran, ids, res.Errors)
	}
	ran = nil
	res = runTranslated(bad, true, nil, func(idx []int, r *exec.Retry) *exec.WriteResult {
		ran = idx
		return &exec.WriteResult{N: 1}
	})
	if len(ran) != 1 || ran[0] != 0 || len(res.Errors) != 1 || res.Errors[0].Index != 1 || res.N != 1 {
		t.Fatalf("ordered: ran %v result %+v", ran, res)
	}
}

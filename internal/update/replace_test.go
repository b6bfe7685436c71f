package update

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestReplacement(t *testing.T) {
	runApplyCases(t, []applyCase{
		{name: "keeps _id first", doc: `{"_id": 1, "a": 1}`, update: `{"b": 2}`, want: `{"_id": 1, "b": 2}`},
		{name: "same _id", doc: `{"_id": 1, "a": 1}`, update: `{"b": 2, "_id": 1}`, want: `{"_id": 1, "b": 2}`},
		{name: "identical noop", doc: `{"_id": 1, "a": 1}`, update: `{"a": 1}`, want: `{"_id": 1, "a": 1}`, noop: true},
		{name: "type change is a change", doc: `{"_id": 1, "a": 1}`, update: `{"a": 1.0}`, want: `{"_id": 1, "a": 1.0}`},
		{name: "empty replacement", doc: `{"_id": 1, "a": 1}`, update: `{}`, want: `{"_id": 1}`},
		{name: "changed _id", doc: `{"_id": 1}`, update: `{"_id": 2}`, code: mongoerr.ImmutableField,
			msg: "After applying the update, the (immutable) field '_id' was found to have been altered to _id: 2"},
		{name: "array filters rejected", doc: `{"_id": 1}`, update: `{"a": 1}`, filters: []string{`{"x": 1}`}, code: mongoerr.FailedToParse},
	})
}

func TestReplacementOplogIsDocument(t *testing.T) {
	u, err := Compile(D(t, `{"b": 2}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := u.Apply(D(t, `{"_id": 7, "a": 1}`), ApplyContext{MatchedPos: -1})
	if err != nil {
		t.Fatal(err)
	}
	if want := D(t, `{"_id": 7, "b": 2}`); !identical(res.Oplog, want) {
		t.Fatalf("oplog %s, want %s", fmtValue(res.Oplog), fmtValue(want))
	}
}

func TestOplogForm(t *testing.T) {
	cases := []struct{ doc, update, want string }{
		{`{"_id": 1, "a": 5}`, `{"$inc": {"a": 1}}`, `{"$set": {"a": 6}}`},
		{`{"_id": 1, "a": [1]}`, `{"$push": {"a": 2}}`, `{"$set": {"a": [1, 2]}}`},
		{`{"_id": 1, "a": 1, "b": 1}`, `{"$unset": {"a": 1}, "$set": {"c": 1}}`, `{"$set": {"c": 1}, "$unset": {"a": true}}`},
		{`{"_id": 1, "a": 1}`, `{"$rename": {"a": "b"}}`, `{"$set": {"b": 1}, "$unset": {"a": true}}`},
		{`{"_id": 1, "a": [1, 2]}`, `{"$unset": {"a.0": 1}}`, `{"$set": {"a.0": null}}`},
		{`{"_id": 1, "a": [1, 2]}`, `{"$inc": {"a.$[]": 1}}`, `{"$set": {"a.0": 2, "a.1": 3}}`},
	}
	for _, c := range cases {
		u, err := Compile(D(t, c.update), Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := u.Apply(D(t, c.doc), ApplyContext{MatchedPos: -1})
		if err != nil {
			t.Fatal(err)
		}
		if want := D(t, c.want); !identical(res.Oplog, want) {
			t.Errorf("%s on %s: oplog %s, want %s", c.update, c.doc, fmtValue(res.Oplog), fmtValue(want))
		}
	}
}

func TestApplyOplog(t *testing.T) {
	cases := []struct{ doc, o, want string }{
		{`{"_id": 1}`, `{}`, `{}`},
		{`{"_id": 1, "a": 1}`, `{"_id": 1, "b": 1}`, `{"_id": 1, "b": 1}`},
		{`{"_id": 1, "a": 1}`, `{"$set": {"a.b": 1, "c": 2}}`, `{"_id": 1, "a": 1, "c": 2}`},
		{`{"_id": 1, "a": [1]}`, `{"$set": {"a.2": 3}}`, `{"_id": 1, "a": [1, null, 3]}`},
		{`{"_id": 1, "a": {"b": 1}}`, `{"$unset": {"a.b": true, "x.y": true}}`, `{"_id": 1, "a": {}}`},
	}
	for _, c := range cases {
		got, err := ApplyOplog(D(t, c.doc), D(t, c.o))
		if err != nil {
			t.Fatalf("%s: %v", c.o, err)
		}
		if want := D(t, c.want); !identical(got, want) {
			t.Errorf("ApplyOplog(%s, %s) = %s, want %s", c.doc, c.o, fmtValue(got), fmtValue(want))
		}
	}
	_, err := ApplyOplog(bson.D{}, D(t, `{"$inc": {"a": 1}}`))
	checkErr(t, err, mongoerr.FailedToParse, "")
}

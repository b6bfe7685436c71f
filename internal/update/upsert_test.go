package update

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestUpsert(t *testing.T) {
	cases := []struct {
		name, query, update string
		want                string // without _id when genID
		genID               bool
		code                mongoerr.Code
	}{
		{name: "query fields and set", query: `{"_id": 1, "a": 2}`, update: `{"$set": {"b": 1}}`, want: `{"_id": 1, "a": 2, "b": 1}`},
		{name: "eq dotted and ranges ignored", query: `{"x": {"$eq": 1}, "b.c": 2, "c": {"$gt": 5}}`, update: `{"$inc": {"n": 1}}`,
			want: `{"b": {"c": 2}, "x": 1, "n": 1}`, genID: true},
		{name: "and", query: `{"$and": [{"a": 1}, {"b": 2}]}`, update: `{"$set": {"c": 3}}`, want: `{"a": 1, "b": 2, "c": 3}`, genID: true},
		{name: "regex ignored", query: `{"_id": 1, "s": {"$regularExpression": {"pattern": "x", "options": ""}}}`, update: `{"$set": {"c": 3}}`, want: `{"_id": 1, "c": 3}`},
		{name: "setOnInsert", query: `{"_id": 1}`, update: `{"$setOnInsert": {"c": 3}}`, want: `{"_id": 1, "c": 3}`},
		{name: "update overrides query", query: `{"_id": 1, "a": 1}`, update: `{"$set": {"a": 2}}`, want: `{"_id": 1, "a": 2}`},
		{name: "update sets _id", query: `{"a": 1}`, update: `{"$set": {"_id": 9}}`, want: `{"_id": 9, "a": 1}`},
		{name: "array _id", query: `{"a": 1}`, update: `{"$set": {"_id": [1]}}`, code: mongoerr.InvalidIdField},
		{name: "positional on upsert", query: `{"a": [1]}`, update: `{"$set": {"a.$": 2}}`, code: mongoerr.BadValue},
		{name: "update changes query _id", query: `{"_id": 1}`, update: `{"$set": {"_id": 2}}`, code: mongoerr.ImmutableField},
		{name: "matched twice", query: `{"$and": [{"a": 1}, {"a": 2}]}`, update: `{"$set": {"c": 3}}`, code: mongoerr.NotSingleValueField},
		{name: "prefix paths", query: `{"a": {"b": 1}, "a.b": 1}`, update: `{"$set": {"c": 3}}`, code: mongoerr.NotSingleValueField},
		{name: "query path not viable", query: `{"a": 1}`, update: `{"$set": {"a.b": 1}}`, code: mongoerr.PathNotViable},
		{name: "replacement gets query _id", query: `{"_id": 5, "x": 1}`, update: `{"y": 1}`, want: `{"_id": 5, "y": 1}`},
		{name: "replacement own _id", query: `{"x": 1}`, update: `{"y": 1, "_id": 3}`, want: `{"_id": 3, "y": 1}`},
		{name: "replacement _id conflict", query: `{"_id": 5}`, update: `{"_id": 6}`, code: mongoerr.ImmutableField},
		{name: "replacement generated _id", query: `{"x": 1}`, update: `{"y": 1}`, want: `{"y": 1}`, genID: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u, err := Compile(D(t, c.update), Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := u.Upsert(D(t, c.query), ApplyContext{MatchedPos: -1, Now: testNow})
			if checkErr(t, err, c.code, "") {
				return
			}
			if len(got) == 0 || got[0].Key != "_id" {
				t.Fatalf("_id not first: %s", fmtValue(got))
			}
			if c.genID {
				if _, ok := got[0].Value.(bson.ObjectID); !ok {
					t.Fatalf("want generated ObjectID, got %s", fmtValue(got))
				}
				got = got[1:]
			}
			if want := D(t, c.want); !identical(got, want) {
				t.Fatalf("got %s, want %s", fmtValue(got), fmtValue(want))
			}
		})
	}
}

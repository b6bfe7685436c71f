package agg

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// The executor applies a leading $match's $text and gives each document
// its score in expr.TextScoreField; the pipeline sorts and projects it.
func TestTextScorePipeline(t *testing.T) {
	scored := func(id int32, s float64) bson.D {
		return bson.D{{Key: "_id", Value: id}, {Key: expr.TextScoreField, Value: s}}
	}
	in := []bson.D{scored(1, 0.5), scored(2, 2), scored(3, 1)}
	got, err := runPipe(t, `[{"$match": {"$text": {"$search": "x"}}}, {"$sort": {"s": {"$meta": "textScore"}}},
		{"$project": {"s": {"$meta": "textScore"}}}, {"$addFields": {"t": {"$meta": "textScore"}}}]`, in)
	if err != nil {
		t.Fatal(err)
	}
	var ids []any
	for _, d := range got {
		v, _ := bsonx.Get(d, "_id")
		s, _ := bsonx.Get(d, "s")
		u, _ := bsonx.Get(d, "t")
		if s != u {
			t.Errorf("%v: s %v, t %v", d, s, u)
		}
		ids = append(ids, v)
	}
	if len(ids) != 3 || ids[0] != int32(2) || ids[1] != int32(3) || ids[2] != int32(1) {
		t.Errorf("order %v, want [2 3 1]", ids)
	}
	for _, tc := range []struct {
		pipeline string
		code     mongoerr.Code
	}{
		{`[{"$sort": {"_id": 1}}, {"$match": {"$text": {"$search": "x"}}}]`, mongoerr.TextMatchNotFirst},
		{`[{"$project": {"s": {"$meta": "textScore"}}}]`, mongoerr.TextScoreUnavailable},
		{`[{"$sort": {"s": {"$meta": "textScore"}}}]`, mongoerr.TextScoreUnavailable},
	} {
		if _, err := runPipe(t, tc.pipeline, []bson.D{{{Key: "_id", Value: 1}}}); !mongoerr.Is(err, tc.code) {
			t.Errorf("%s: got %v, want %d", tc.pipeline, err, tc.code)
		}
	}
}

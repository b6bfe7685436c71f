package expr

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// FuzzCompileEval checks that no expression panics when compiled and
// evaluated; errors are fine.
func FuzzCompileEval(f *testing.F) {
	for _, s := range []string{
		`{"$add": [1, "$a"]}`, `{"$substrCP": ["$s", 1, 2]}`, `{"$slice": ["$arr", -2, 1]}`,
		`{"$round": [1.5, -3]}`, `{"$pow": [2, 70]}`, `{"$map": {"input": "$arr", "in": {"$multiply": ["$$this", 2]}}}`,
		`{"$dateToString": {"date": "$d", "format": "%Y%j%%"}}`, `{"$arrayToObject": [[["a", 1]]]}`,
		`{"$indexOfCP": ["$s", "b", 1, 9]}`, `{"$range": [0, 10, 3]}`, `{"$convert": {"input": "$s", "to": "int", "onError": 0}}`,
	} {
		f.Add(s)
	}
	doc := bson.D{
		{Key: "a", Value: int32(5)}, {Key: "s", Value: "héllo"}, {Key: "arr", Value: bson.A{int32(1), 2.5, "x", bson.D{{Key: "a", Value: int64(1)}}}},
		{Key: "d", Value: bson.DateTime(1600000000000)},
	}
	f.Fuzz(func(t *testing.T, s string) {
		var d bson.D
		if err := bson.UnmarshalExtJSON([]byte(`{"v":`+s+`}`), false, &d); err != nil || len(d) != 1 {
			return
		}
		e, err := Compile(d[0].Value)
		if err != nil {
			return
		}
		_, _ = e.Eval(doc, nil)
	})
}

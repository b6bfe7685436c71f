package agg

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// FuzzPipeline checks that no pipeline panics when compiled and run over a
// fixed input; errors are fine.
func FuzzPipeline(f *testing.F) {
	for _, s := range []string{
		`[{"$unwind": {"path": "$a.b", "includeArrayIndex": "i.j", "preserveNullAndEmptyArrays": true}}]`,
		`[{"$project": {"a.b": 1, "c": {"$add": ["$x", 1]}}}]`, `[{"$set": {"a.b.c": "$x"}}, {"$unset": "a"}]`,
		`[{"$group": {"_id": "$a", "s": {"$sum": "$x"}, "p": {"$push": "$$ROOT"}}}, {"$sort": {"s": -1}}, {"$limit": 1}]`,
		`[{"$bucket": {"groupBy": "$x", "boundaries": [0, 5], "default": "d"}}]`,
		`[{"$facet": {"a": [{"$sortByCount": "$x"}], "b": [{"$sample": {"size": 1}}]}}]`,
		`[{"$lookup": {"from": "inventory", "localField": "a.b", "foreignField": "sku", "as": "a"}}]`,
	} {
		f.Add(s)
	}
	in := []bson.D{
		{{Key: "_id", Value: int32(1)}, {Key: "a", Value: bson.D{{Key: "b", Value: bson.A{int32(1), "a"}}}}, {Key: "x", Value: 2.5}},
		{{Key: "_id", Value: int32(2)}, {Key: "a", Value: bson.A{bson.D{{Key: "b", Value: nil}}, int32(3)}}, {Key: "x", Value: int64(7)}},
		{{Key: "_id", Value: int32(3)}},
	}
	f.Fuzz(func(t *testing.T, s string) {
		var d bson.D
		if err := bson.UnmarshalExtJSON([]byte(`{"v":`+s+`}`), false, &d); err != nil || len(d) != 1 {
			return
		}
		arr, ok := d[0].Value.(bson.A)
		if !ok {
			return
		}
		p, err := Compile(arr, testEnv(t))
		if err != nil {
			return
		}
		_, _ = Drain(p.Run(Slice(in)))
	})
}

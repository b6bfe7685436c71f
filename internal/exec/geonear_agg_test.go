package exec

import (
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func aggregateDocs(t *testing.T, e *Engine, pipeline string) ([]bson.D, error) {
	t.Helper()
	var wrap bson.D
	if err := bson.UnmarshalExtJSON([]byte(`{"p": `+pipeline+`}`), false, &wrap); err != nil {
		t.Fatal(err)
	}
	it, err := e.Aggregate("t", "c", AggregateParams{Pipeline: wrap[0].Value.(bson.A)})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out []bson.D
	for r, ok := it.Next(); ok; r, ok = it.Next() {
		d, err := r.decoded()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out, it.Err()
}

func TestGeoNearStage(t *testing.T) {
	const sphere = `{"key": {"loc": "2dsphere"}, "name": "loc_2dsphere"}`
	const flat = `{"key": {"flat": "2d"}, "name": "flat_2d"}`
	for _, tc := range []struct {
		name     string
		specs    []string
		pipeline string
		want     string // _id:distance, ...
		code     mongoerr.Code
	}{
		{name: "meters", specs: []string{sphere},
			pipeline: `[{"$geoNear": {"near": {"type": "Point", "coordinates": [0, 0]}, "distanceField": "d", "maxDistance": 250000}}]`,
			want:     "0:0 1:111319 2:222638"},
		{name: "query limit multiplier", specs: []string{sphere},
			pipeline: `[{"$geoNear": {"near": {"type": "Point", "coordinates": [0, 0]}, "distanceField": "x.d", "query": {"_id": {"$gte": 5}}, "distanceMultiplier": 0.001}}, {"$limit": 2}]`,
			want:     "5:557 6:668"},
		{name: "flat 2d", specs: []string{flat, sphere},
			pipeline: `[{"$geoNear": {"near": [2.5, 0], "distanceField": "d", "includeLocs": "l", "maxDistance": 1}}]`,
			want:     "2:0 3:0"}, // 0.5 each, printed %.0f
		{name: "key picks the index", specs: []string{flat, sphere},
			pipeline: `[{"$geoNear": {"near": [0, 0], "spherical": true, "key": "loc", "distanceField": "d", "maxDistance": 0.02}}]`,
			want:     "0:0 1:0"},
		{name: "no index", pipeline: `[{"$geoNear": {"near": [0, 0], "distanceField": "d"}}]`, code: mongoerr.IndexNotFound},
		{name: "two 2dsphere indexes", specs: []string{sphere, `{"key": {"other": "2dsphere"}, "name": "o"}`},
			pipeline: `[{"$geoNear": {"near": [0, 0], "distanceField": "d"}}]`, code: mongoerr.IndexNotFound},
		{name: "not first", specs: []string{sphere}, pipeline: `[{"$match": {}}, {"$geoNear": {"near": [0, 0], "distanceField": "d"}}]`, code: mongoerr.GeoNearNotFirst},
		{name: "$near in $match", specs: []string{sphere}, pipeline: `[{"$match": {"loc": {"$near": [0, 0]}}}]`, code: mongoerr.BadValue},
		{name: "$nearSphere in a later $match", specs: []string{sphere},
			pipeline: `[{"$limit": 5}, {"$match": {"$and": [{"loc": {"$nearSphere": [0, 0]}}]}}]`, code: mongoerr.BadValue},
		{name: "in a $lookup sub-pipeline", specs: []string{sphere},
			pipeline: `[{"$limit": 1}, {"$lookup": {"from": "c", "as": "x", "pipeline": [{"$geoNear": {"near": [0, 0], "distanceField": "d"}}]}}]`,
			code:     mongoerr.NotImplemented},
		{name: "no distanceField", specs: []string{sphere}, pipeline: `[{"$geoNear": {"near": [0, 0]}}]`, code: mongoerr.GeoNearNeedsDistField},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := geoEngine(t, tc.specs...)
			docs, err := aggregateDocs(t, e, tc.pipeline)
			if tc.code != 0 {
				if !mongoerr.Is(err, tc.code) {
					t.Fatalf("want code %d, got %v", tc.code, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range docs {
				dist := lookupD(d, "d")
				if x, ok := lookupD(d, "x").(bson.D); ok {
					dist = lookupD(x, "d")
				}
				got = append(got, fmt.Sprintf("%v:%.0f", lookupD(d, "_id"), dist))
				if strings.Contains(tc.pipeline, "includeLocs") && lookupD(d, "l") == nil {
					t.Errorf("no location in %v", d)
				}
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("got %s, want %s", strings.Join(got, " "), tc.want)
			}
		})
	}
}

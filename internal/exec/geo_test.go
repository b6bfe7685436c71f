package exec

import (
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// geoEngine holds t.c with points along the equator at longitude 0..9
// (_id = longitude), a polygon and a document without location, indexed
// by the given specs.
func geoEngine(t *testing.T, specs ...string) *Engine {
	t.Helper()
	e := emptyEngine(t)
	col, err := e.CollectionForWrite("t", "c")
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) > 0 {
		if _, _, err := e.Catalog().CreateIndexes(col, ddDocs(t, strings.Join(specs, "\n"))); err != nil {
			t.Fatal(err)
		}
	}
	var docs []string
	for i := 9; i >= 0; i-- {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "loc": {"type": "Point", "coordinates": [%d, 0]}, "flat": [%d, 0], "n": %d}`, i, i, i, i%2))
	}
	docs = append(docs, `{"_id": 100, "loc": {"type": "Polygon", "coordinates": [[[20, 20], [21, 20], [21, 21], [20, 21], [20, 20]]]}}`,
		`{"_id": 101, "x": 1}`)
	if res := e.Insert("t", "c", ddDocs(t, strings.Join(docs, "\n")), true, nil); len(res.Errors) > 0 {
		t.Fatal(res.Errors[0].Err)
	}
	return e
}

func TestGeoPlans(t *testing.T) {
	const sphere = `{"key": {"loc": "2dsphere"}, "name": "loc_2dsphere"}`
	const flat = `{"key": {"flat": "2d"}, "name": "flat_2d"}`
	for _, tc := range []struct {
		name   string
		specs  []string
		filter string
		sort   string
		limit  int64
		kind   string
		ids    string
		code   mongoerr.Code
	}{
		{name: "near GeoJSON", specs: []string{sphere}, filter: `{"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [4.2, 0]}}}}`,
			kind: geoNear2dsphere, ids: "4 5 3 6 2 7 1 8 0 9 100"},
		{name: "near max distance meters", specs: []string{sphere},
			filter: `{"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}, "$maxDistance": 250000}}}`,
			kind:   geoNear2dsphere, ids: "0 1 2"},
		{name: "near min distance", specs: []string{sphere},
			filter: `{"loc": {"$nearSphere": {"$geometry": {"type": "Point", "coordinates": [0, 0]}, "$minDistance": 800000, "$maxDistance": 1000000}}}`,
			kind:   geoNear2dsphere, ids: "8"},
		{name: "near with filter and limit", specs: []string{sphere}, filter: `{"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [9, 0]}}}, "_id": {"$lt": 5}}`,
			limit: 2, kind: geoNear2dsphere, ids: "4 3"},
		{name: "near then sort", specs: []string{sphere}, filter: `{"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}, "$maxDistance": 250000}}}`,
			sort: `{"_id": -1}`, kind: geoNear2dsphere, ids: "2 1 0"},
		{name: "legacy nearSphere radians on 2dsphere", specs: []string{sphere}, filter: `{"loc": {"$nearSphere": [0, 0], "$maxDistance": 0.03}}`,
			kind: geoNear2dsphere, ids: "0 1"},
		{name: "near 2d flat", specs: []string{flat}, filter: `{"flat": {"$near": [6.6, 0], "$maxDistance": 1.5}}`,
			kind: geoNear2d, ids: "7 6 8"},
		{name: "2d $box", specs: []string{flat}, filter: `{"flat": {"$geoWithin": {"$box": [[2.5, -1], [4.5, 1]]}}}`,
			kind: "IXSCAN", ids: "3 4"},
		{name: "2d $center", specs: []string{flat}, filter: `{"flat": {"$geoWithin": {"$center": [[0, 0], 1]}}}`,
			kind: "IXSCAN", ids: "0 1"},
		{name: "2d $polygon", specs: []string{flat}, filter: `{"flat": {"$geoWithin": {"$polygon": [[5.5, -1], [7.5, -1], [7.5, 1], [5.5, 1]]}}}`,
			kind: "IXSCAN", ids: "6 7"},
		{name: "compound near with an equality prefix", specs: []string{`{"key": {"n": 1, "loc": "2dsphere"}, "name": "n_loc"}`},
			filter: `{"n": 1, "loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [4.2, 0]}, "$maxDistance": 400000}}}`,
			kind:   geoNear2dsphere, ids: "5 3 7 1"},
		{name: "compound within with an equality prefix", specs: []string{`{"key": {"n": 1, "loc": "2dsphere"}, "name": "n_loc"}`},
			filter: `{"n": 0, "loc": {"$geoWithin": {"$centerSphere": [[0, 0], 0.05]}}}`, kind: "IXSCAN", ids: "0 2"},
		{name: "compound near without the prefix scans the index", specs: []string{`{"key": {"n": 1, "loc": "2dsphere"}, "name": "n_loc"}`},
			filter: `{"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}, "$maxDistance": 250000}}}`,
			kind:   geoNear2dsphere, ids: "0 1 2"},
		{name: "near needs an index", filter: `{"loc": {"$near": [0, 0]}}`, code: mongoerr.BadValue},
		{name: "near not top level", specs: []string{sphere}, filter: `{"$or": [{"loc": {"$near": [0, 0]}}, {"x": 1}]}`, code: mongoerr.BadValue},
		{name: "within uses the index", specs: []string{sphere},
			filter: `{"loc": {"$geoWithin": {"$geometry": {"type": "Polygon", "coordinates": [[[1.5, -1], [3.5, -1], [3.5, 1], [1.5, 1], [1.5, -1]]]}}}}`,
			kind:   "IXSCAN", ids: "2 3"},
		{name: "intersects polygon", specs: []string{sphere},
			filter: `{"loc": {"$geoIntersects": {"$geometry": {"type": "LineString", "coordinates": [[20.5, 19], [20.5, 22]]}}}}`,
			kind:   "IXSCAN", ids: "100"},
		{name: "within without index", filter: `{"loc": {"$geoWithin": {"$centerSphere": [[0, 0], 0.03]}}}`, kind: "COLLSCAN", ids: "0 1"},
		{name: "equality on a geo field is no index lookup", specs: []string{sphere}, filter: `{"loc": {"type": "Point", "coordinates": [3, 0]}}`,
			kind: "COLLSCAN", ids: "3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := geoEngine(t, tc.specs...)
			p := FindParams{Filter: ddDoc(t, tc.filter), Limit: tc.limit}
			if tc.sort != "" {
				p.Sort = ddDoc(t, tc.sort)
			}
			it, plan, err := e.Find("t", "c", p)
			if tc.code != 0 {
				if !mongoerr.Is(err, tc.code) {
					t.Fatalf("want code %d, got %v", tc.code, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			it.Close()
			if plan.Kind != tc.kind {
				t.Errorf("plan %s, want %s", plan.Kind, tc.kind)
			}
			if got := strings.Join(findIDs(t, e, p), " "); got != tc.ids {
				t.Errorf("ids %q, want %q", got, tc.ids)
			}
		})
	}
}

func TestGeoExplain(t *testing.T) {
	e := geoEngine(t, `{"key": {"loc": "2dsphere"}, "name": "loc_2dsphere"}`)
	doc, err := e.ExplainFind("t", "c", FindParams{Filter: ddDoc(t, `{"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}, "$maxDistance": 1000}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := lookupD(doc, "winningPlan").(bson.D)
	if lookupD(w, "stage") != geoNear2dsphere || lookupD(w, "indexName") != "loc_2dsphere" {
		t.Fatalf("winningPlan %v", w)
	}
	fetch := lookupD(w, "inputStages").(bson.A)[0].(bson.D)
	ix := lookupD(fetch, "inputStage").(bson.D)
	b, _ := lookupD(ix, "indexBounds").(bson.D)
	if lookupD(ix, "stage") != "IXSCAN" || len(b) != 1 || b[0].Key != "loc" || len(b[0].Value.(bson.A)) == 0 {
		t.Errorf("input %v", fetch)
	}
	cmp := geoEngine(t, `{"key": {"n": 1, "loc": "2dsphere"}, "name": "n_loc"}`)
	_, plan, err := cmp.Find("t", "c", FindParams{Filter: ddDoc(t, `{"n": 1, "loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}}}}`)})
	if err != nil || len(plan.Intervals) != 1 || plan.Intervals[0].lo == nil || fmt.Sprint(lookupD(plan.Bounds, "n")) != "[[1, 1]]" {
		t.Errorf("compound $near with {n: 1}: %v, intervals %d, bounds %v", err, len(plan.Intervals), plan.Bounds)
	}
	flat := geoEngine(t, `{"key": {"flat": "2d"}, "name": "flat_2d"}`)
	_, plan, err = flat.Find("t", "c", FindParams{Filter: ddDoc(t, `{"flat": {"$near": [3, 0], "$maxDistance": 1}}`)})
	if err != nil || plan.Kind != geoNear2d || len(plan.Intervals) == 0 || plan.Intervals[0].lo == nil {
		t.Errorf("2d $near with $maxDistance: %v, plan %+v, want geohash ranges", err, plan)
	}
}

package query

import (
	"math"
	"testing"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// $geoWithin and $geoIntersects match exactly without an index; $near
// parses and leaves distances to the executor.
func TestGeoOperators(t *testing.T) {
	const sq = `{"type": "Polygon", "coordinates": [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]]}`
	for _, tc := range []struct {
		filter, doc string
		want        bool
	}{
		{`{"loc": {"$geoWithin": {"$geometry": ` + sq + `}}}`, `{"loc": {"type": "Point", "coordinates": [5, 5]}}`, true},
		{`{"loc": {"$geoWithin": {"$geometry": ` + sq + `}}}`, `{"loc": {"type": "Point", "coordinates": [15, 5]}}`, false},
		{`{"loc": {"$geoWithin": {"$geometry": ` + sq + `}}}`, `{"loc": [5, 5]}`, true},
		{`{"loc": {"$geoWithin": {"$geometry": ` + sq + `}}}`, `{"loc": [[50, 50], [5, 5]]}`, true},
		{`{"loc": {"$geoWithin": {"$geometry": ` + sq + `}}}`, `{"other": 1}`, false},
		{`{"loc": {"$geoWithin": {"$geometry": ` + sq + `}}}`, `{"loc": "x"}`, false},
		{`{"a.loc": {"$geoWithin": {"$geometry": ` + sq + `}}}`, `{"a": [{"loc": [50, 50]}, {"loc": [1, 1]}]}`, true},
		{`{"loc": {"$within": {"$box": [[0, 0], [2, 2]]}}}`, `{"loc": [1, 1]}`, true},
		{`{"loc": {"$geoWithin": {"$center": [[0, 0], 1]}}}`, `{"loc": [1, 1]}`, false},
		{`{"loc": {"$geoWithin": {"$centerSphere": [[0, 0], 0.1]}}}`, `{"loc": {"type": "Point", "coordinates": [1, 1]}}`, true},
		{`{"loc": {"$geoWithin": {"$polygon": [[0, 0], [4, 0], [0, 4]]}}}`, `{"loc": [1, 1]}`, true},
		{`{"loc": {"$geoIntersects": {"$geometry": ` + sq + `}}}`, `{"loc": {"type": "LineString", "coordinates": [[-5, 5], [15, 5]]}}`, true},
		{`{"loc": {"$geoIntersects": {"$geometry": ` + sq + `}}}`, `{"loc": {"type": "LineString", "coordinates": [[-5, 15], [15, 15]]}}`, false},
		{`{"loc": {"$geoIntersects": {"$geometry": {"type": "Point", "coordinates": [5, 5]}}}}`, `{"loc": ` + sq + `}`, true},
		{`{"loc": {"$near": [0, 0], "$maxDistance": 1}}`, `{"loc": [50, 50]}`, true},
		{`{"loc": {"$nearSphere": {"$geometry": {"type": "Point", "coordinates": [0, 0]}}}}`, `{"x": 1}`, false},
	} {
		m, err := Compile(mustDoc(t, tc.filter))
		if err != nil {
			t.Fatalf("%s: %v", tc.filter, err)
		}
		if got := m.Match(mustDoc(t, tc.doc)); got != tc.want {
			t.Errorf("%s on %s = %v, want %v", tc.filter, tc.doc, got, tc.want)
		}
	}
}

func TestGeoOperatorErrors(t *testing.T) {
	for _, f := range []string{
		`{"loc": {"$geoWithin": {"$geometry": {"type": "Point", "coordinates": [0, 0]}}}}`,
		`{"loc": {"$geoWithin": {"$foo": 1}}}`,
		`{"loc": {"$geoWithin": {"$centerSphere": [[0, 0], -1]}}}`,
		`{"loc": {"$geoIntersects": {"$box": [[0, 0], [1, 1]]}}}`,
		`{"loc": {"$near": "x"}}`,
		`{"loc": {"$near": [0, 0], "$maxDistance": -1}}`,
		`{"loc": {"$near": [0, 0], "$gt": 1}}`,
		`{"loc": {"$geoIntersects": {"$geometry": {"type": "Point", "coordinates": [500, 0]}}}}`,
	} {
		if _, err := Compile(mustDoc(t, f)); !mongoerr.Is(err, mongoerr.BadValue) {
			t.Errorf("Compile(%s) = %v, want BadValue", f, err)
		}
	}
}

func TestNearOrder(t *testing.T) {
	path, dist, ok := NearOrder(mustDoc(t, `{"x": 1, "$and": [{"a.loc": {"$near": [0, 0]}}]}`))
	if !ok || path != "a.loc" {
		t.Fatalf("NearOrder: %q %v", path, ok)
	}
	if d := dist(mustDoc(t, `{"a": {"loc": [[5, 0], [3, 4]]}}`)); d != 5 {
		t.Errorf("distance %v, want 5", d)
	}
	if d := dist(mustDoc(t, `{"a": {"other": 1}}`)); !math.IsInf(d, 1) {
		t.Errorf("no location: %v", d)
	}
	if _, _, ok := NearOrder(mustDoc(t, `{"loc": {"$geoWithin": {"$box": [[0, 0], [1, 1]]}}}`)); ok {
		t.Error("no $near")
	}
}

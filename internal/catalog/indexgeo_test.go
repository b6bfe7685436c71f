package catalog

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func geoPoint(x, y float64) bson.D {
	return d("type", "Point", "coordinates", bson.A{x, y})
}

// A geo index holds cell (2dsphere) or geohash (2d) keys; documents
// without the geo field have no entry; bad geometry refuses the write.
func TestGeoIndexKeys(t *testing.T) {
	square := d("type", "Polygon", "coordinates", bson.A{bson.A{bson.A{0, 0}, bson.A{1, 0}, bson.A{1, 1}, bson.A{0, 1}, bson.A{0, 0}}})
	for _, tc := range []struct {
		name  string
		spec  bson.D
		doc   bson.D
		nKeys int // -1: more than one
		multi bool
		code  mongoerr.Code
	}{
		{name: "point", spec: d("key", d("loc", "2dsphere"), "name", "g"), doc: d("loc", geoPoint(1, 2)), nKeys: 1},
		{name: "legacy pair", spec: d("key", d("loc", "2dsphere"), "name", "g"), doc: d("loc", bson.A{1, 2}), nKeys: 1},
		{name: "polygon", spec: d("key", d("loc", "2dsphere"), "name", "g"), doc: d("loc", square), nKeys: -1, multi: true},
		{name: "missing", spec: d("key", d("loc", "2dsphere"), "name", "g"), doc: d("x", 1), nKeys: 0},
		{name: "null", spec: d("key", d("loc", "2dsphere"), "name", "g"), doc: d("loc", nil), nKeys: 0},
		{name: "array of points", spec: d("key", d("loc", "2dsphere"), "name", "g"), doc: d("loc", bson.A{geoPoint(1, 2), geoPoint(50, 50)}), nKeys: 2, multi: true},
		{name: "compound", spec: d("key", d("loc", "2dsphere", "a", 1), "name", "g"), doc: d("loc", geoPoint(1, 2), "a", bson.A{1, 2}), nKeys: 2, multi: true},
		{name: "bad geometry", spec: d("key", d("loc", "2dsphere"), "name", "g"), doc: d("loc", geoPoint(200, 0)), code: mongoerr.GeoExtractKeys},
		{name: "not geo", spec: d("key", d("loc", "2dsphere"), "name", "g"), doc: d("loc", "x"), code: mongoerr.GeoExtractKeys},
		{name: "2d", spec: d("key", d("loc", "2d"), "name", "g"), doc: d("loc", bson.A{1, 2}), nKeys: 1},
		{name: "2d out of range", spec: d("key", d("loc", "2d"), "name", "g"), doc: d("loc", bson.A{190, 2}), code: mongoerr.Geo2dPointOutOfRange},
		{name: "2d custom range", spec: d("key", d("loc", "2d"), "name", "g", "min", 0, "max", 1000), doc: d("loc", bson.A{190, 2}), nKeys: 1},
		{name: "2d GeoJSON", spec: d("key", d("loc", "2d"), "name", "g"), doc: d("loc", geoPoint(1, 2)), code: mongoerr.Geo2dNotLegacy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			idx, err := parseSpec(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			keys, multi, err := indexKeys(idx, tc.doc)
			if tc.code != 0 {
				if !mongoerr.Is(err, tc.code) {
					t.Fatalf("want code %d, got %v", tc.code, err)
				}
				return
			}
			if err != nil || multi != tc.multi {
				t.Fatalf("err %v multikey %v", err, multi)
			}
			if tc.nKeys >= 0 && len(keys) != tc.nKeys || tc.nKeys < 0 && len(keys) < 2 {
				t.Fatalf("%d keys, want %d", len(keys), tc.nKeys)
			}
		})
	}
}

func TestGeoIndexSpecs(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec bson.D
		code mongoerr.Code
	}{
		{"2d not first", d("key", d("a", 1, "loc", "2d"), "name", "g"), mongoerr.Geo2dNotFirst},
		{"two 2d", d("key", d("loc", "2d", "b", "2d"), "name", "g"), mongoerr.Geo2dTwoFields},
		{"bits", d("key", d("loc", "2d"), "name", "g", "bits", 40), mongoerr.Geo2dBadBits},
		{"min max", d("key", d("loc", "2d"), "name", "g", "min", 5, "max", 5), mongoerr.CannotCreateIndex},
		{"mixed", d("key", d("loc", "2d", "b", "2dsphere"), "name", "g"), mongoerr.CannotCreateIndex},
		{"version", d("key", d("loc", "2dsphere"), "name", "g", "2dsphereIndexVersion", 1), mongoerr.CannotCreateIndex},
	} {
		if _, err := parseSpec(tc.spec); !mongoerr.Is(err, tc.code) {
			t.Errorf("%s: want code %d, got %v", tc.name, tc.code, err)
		}
	}
	idx, err := parseSpec(d("key", d("loc", "2dsphere"), "name", "g"))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := idx.Spec[len(idx.Spec)-1].Value.(int32); idx.Spec[len(idx.Spec)-1].Key != "2dsphereIndexVersion" || v != 3 {
		t.Errorf("spec %v lacks 2dsphereIndexVersion 3", idx.Spec)
	}
	if keyPatternEqual(d("loc", "2dsphere"), d("loc", 1)) || keyPatternEqual(d("loc", "2d"), d("loc", "2dsphere")) {
		t.Error("geo patterns equal to others")
	}
}

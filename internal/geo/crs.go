package geo

import (
	"fmt"

	"github.com/golang/geo/s2"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// MongoDB's coordinate reference systems for query geometries: the
// default (EPSG:4326, also named by its URNs) reads a polygon as the
// smaller of the two areas its shell bounds; the strict-winding "big
// polygon" CRS reads it as the area to the left of the shell (counter-
// clockwise), so it may cover more than a hemisphere.
const (
	crsStrictWinding = "urn:x-mongodb:crs:strictwinding:EPSG:4326"
)

var crsDefaults = map[string]bool{
	"EPSG:4326": true, "urn:ogc:def:crs:OGC:1.3:CRS84": true, "urn:ogc:def:crs:EPSG::4326": true,
}

// strictWinding reads a GeoJSON crs: {type: "name", properties: {name: N}}.
func strictWinding(crs any) (bool, error) {
	d, _ := crs.(bson.D)
	typ, _ := bsonx.Get(d, "type")
	props, _ := bsonx.Get(d, "properties")
	name, _ := bsonx.Get(asDoc(props), "name")
	if typ != "name" {
		return false, fmt.Errorf("GeoJSON CRS must have field \"type\": \"name\"")
	}
	switch n, _ := name.(string); {
	case n == crsStrictWinding:
		return true, nil
	case crsDefaults[n]:
		return false, nil
	}
	return false, fmt.Errorf("Unknown CRS name: %s", bsonx.ToString(name))
}

func asDoc(v any) bson.D {
	d, _ := v.(bson.D)
	return d
}

// bigPolygon reads a strict-winding Polygon: one shell, no holes, its
// interior on the left of its edges.
func bigPolygon(d bson.D, typ any) (*Geometry, error) {
	if typ != "Polygon" {
		return nil, fmt.Errorf("Strict winding order CRS is only supported by polygon")
	}
	coords, _ := bsonx.Get(d, "coordinates")
	rings, ok := coords.(bson.A)
	if !ok || len(rings) != 1 {
		return nil, fmt.Errorf("Only one simple loop is allowed in a big polygon: %s", bsonx.ToString(coords))
	}
	l, err := rawRing(rings[0])
	if err != nil {
		return nil, err
	}
	p := s2.PolygonFromLoops([]*s2.Loop{l})
	if i, j, crossed := crossingEdges(p); crossed {
		return nil, fmt.Errorf("Loop is not valid: %s Edges %d and %d cross", bsonx.ToString(coords), i, j)
	}
	return &Geometry{Polygons: []*s2.Polygon{p}}, nil
}

package geo

import (
	"fmt"

	"github.com/golang/geo/s2"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// maxVertices bounds the positions one geometry may have, so parsing and
// the pairwise tests on it stay bounded.
const maxVertices = 100000

// Geometry is one stored or queried shape: GeoJSON parts on the sphere,
// or a legacy coordinate pair (Legacy, with its planar X and Y; Points
// then holds it on the sphere when it is a valid longitude/latitude).
type Geometry struct {
	Points   []s2.Point
	Lines    []*s2.Polyline
	Polygons []*s2.Polygon
	Legacy   bool
	X, Y     float64
	// SphereErr is why a legacy pair is no point on the sphere (nil when it is).
	SphereErr error

	index *s2.ShapeIndex
}

// IsPoint reports a geometry of exactly one point (GeoJSON or legacy).
func (g *Geometry) IsPoint() bool {
	return len(g.Points) == 1 && len(g.Lines) == 0 && len(g.Polygons) == 0
}

// Parse reads a stored location: a GeoJSON object, a legacy pair [x, y]
// or a legacy point document {a: x, b: y}.
func Parse(v any) (*Geometry, error) {
	switch t := v.(type) {
	case bson.D:
		if typ, ok := bsonx.Get(t, "type"); ok {
			return parseGeoJSON(t, typ, 0)
		}
		return parseLegacyDoc(t)
	case bson.A:
		return parseLegacyPair(t)
	}
	return nil, fmt.Errorf("geo element must be an array or object: %s", bsonx.ToString(v))
}

// ParseLegacy reads a legacy point only (the 2d index and flat regions).
func ParseLegacy(v any) (*Geometry, error) {
	switch t := v.(type) {
	case bson.D:
		return parseLegacyDoc(t)
	case bson.A:
		return parseLegacyPair(t)
	}
	return nil, fmt.Errorf("Point must be an array or object")
}

func parseLegacyPair(a bson.A) (*Geometry, error) {
	if len(a) < 2 {
		return nil, fmt.Errorf("Point must only contain numeric elements")
	}
	return legacyXY(a[0], a[1])
}

func parseLegacyDoc(d bson.D) (*Geometry, error) {
	if len(d) < 2 {
		return nil, fmt.Errorf("Point must only contain numeric elements")
	}
	return legacyXY(d[0].Value, d[1].Value)
}

func legacyXY(xv, yv any) (*Geometry, error) {
	x, okX := bsonx.AsFloat64(xv)
	y, okY := bsonx.AsFloat64(yv)
	if !okX || !okY {
		return nil, fmt.Errorf("Point must only contain numeric elements")
	}
	g := &Geometry{Legacy: true, X: x, Y: y}
	p, err := lngLat(x, y)
	if err != nil {
		g.SphereErr = err
	} else {
		g.Points = []s2.Point{p}
	}
	return g, nil
}

// lngLat converts a longitude/latitude pair in degrees, rejecting values
// out of bounds as MongoDB does.
func lngLat(lng, lat float64) (s2.Point, error) {
	if !(lng >= -180 && lng <= 180 && lat >= -90 && lat <= 90) {
		return s2.Point{}, fmt.Errorf("longitude/latitude is out of bounds, lng: %v lat: %v", lng, lat)
	}
	return s2.PointFromLatLng(s2.LatLngFromDegrees(lat, lng)), nil
}

// position reads one GeoJSON position [lng, lat, ...].
func position(v any) (s2.Point, error) {
	a, ok := v.(bson.A)
	if !ok || len(a) < 2 {
		return s2.Point{}, fmt.Errorf("GeoJSON coordinates must be an array of coordinates")
	}
	lng, ok1 := bsonx.AsFloat64(a[0])
	lat, ok2 := bsonx.AsFloat64(a[1])
	if !ok1 || !ok2 {
		return s2.Point{}, fmt.Errorf("GeoJSON coordinates must be numbers")
	}
	return lngLat(lng, lat)
}

// positions reads an array of positions, dropping adjacent duplicates.
func positions(v any) ([]s2.Point, error) {
	a, ok := v.(bson.A)
	if !ok {
		return nil, fmt.Errorf("GeoJSON coordinates must be an array")
	}
	if len(a) > maxVertices {
		return nil, fmt.Errorf("GeoJSON shape has more than %d positions", maxVertices)
	}
	out := make([]s2.Point, 0, len(a))
	for _, e := range a {
		p, err := position(e)
		if err != nil {
			return nil, err
		}
		if len(out) > 0 && out[len(out)-1] == p {
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

func (g *Geometry) String() string {
	return fmt.Sprintf("geometry{points:%d lines:%d polygons:%d legacy:%v}", len(g.Points), len(g.Lines), len(g.Polygons), g.Legacy)
}

package geo

import (
	"fmt"
	"math"

	"github.com/golang/geo/s1"
	"github.com/golang/geo/s2"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// Region is a $geoWithin region: spherical ($geometry Polygon or
// MultiPolygon, $centerSphere) or flat ($box, $center, $polygon, which
// hold points only, by their planar coordinates).
type Region struct {
	polys  []*s2.Polygon // $geometry
	cap    *s2.Cap       // $centerSphere
	box    *[4]float64   // $box: minX, minY, maxX, maxY
	circle *[3]float64   // $center: x, y, radius
	ring   [][2]float64  // $polygon
}

// ParseWithin reads the argument of $geoWithin (or $within).
func ParseWithin(arg any) (*Region, error) {
	d, ok := arg.(bson.D)
	if !ok || len(d) != 1 {
		return nil, fmt.Errorf("$geoWithin not supported with provided geometry: %s", bsonx.ToString(arg))
	}
	switch d[0].Key {
	case "$geometry":
		return withinGeometry(d[0].Value)
	case "$centerSphere":
		return centerSphere(d[0].Value)
	case "$box":
		return box(d[0].Value)
	case "$center":
		return center(d[0].Value)
	case "$polygon":
		return flatPolygon(d[0].Value)
	}
	return nil, fmt.Errorf("unknown geo specifier: %s: %s", d[0].Key, bsonx.ToString(d[0].Value))
}

func withinGeometry(v any) (*Region, error) {
	g, err := queryGeoJSON(v)
	if err != nil {
		return nil, err
	}
	if len(g.Polygons) == 0 || len(g.Points)+len(g.Lines) > 0 {
		return nil, fmt.Errorf("$geoWithin not supported with provided geometry: { $geometry: %s }", bsonx.ToString(v))
	}
	return &Region{polys: g.Polygons}, nil
}

// queryGeoJSON reads a $geometry operand (GeoJSON only).
func queryGeoJSON(v any) (*Geometry, error) {
	d, ok := v.(bson.D)
	typ, hasType := bsonx.Get(d, "type")
	if !ok || !hasType {
		return nil, fmt.Errorf("$geometry must be a GeoJSON object: %s", bsonx.ToString(v))
	}
	if crs, ok := bsonx.Get(d, "crs"); ok {
		strict, err := strictWinding(crs)
		if err != nil {
			return nil, err
		}
		if strict {
			return bigPolygon(d, typ)
		}
	}
	return parseGeoJSON(d, typ, 0)
}

// ParseIntersects reads the argument of $geoIntersects.
func ParseIntersects(arg any) (*Geometry, error) {
	d, ok := arg.(bson.D)
	if !ok || len(d) != 1 || d[0].Key != "$geometry" {
		return nil, fmt.Errorf("$geoIntersects not supported with provided geometry: %s", bsonx.ToString(arg))
	}
	return queryGeoJSON(d[0].Value)
}

// centerAndRadius reads [[x, y], r].
func centerAndRadius(v any, name string) (*Geometry, float64, error) {
	a, ok := v.(bson.A)
	if !ok || len(a) != 2 {
		return nil, 0, fmt.Errorf("%s must be an array of a point and a radius: %s", name, bsonx.ToString(v))
	}
	c, err := ParseLegacy(a[0])
	if err != nil {
		return nil, 0, err
	}
	r, ok := bsonx.AsFloat64(a[1])
	if !ok || r < 0 || math.IsNaN(r) {
		return nil, 0, fmt.Errorf("radius must be a non-negative number")
	}
	return c, r, nil
}

func centerSphere(v any) (*Region, error) {
	c, r, err := centerAndRadius(v, "$centerSphere")
	if err != nil {
		return nil, err
	}
	if c.SphereErr != nil {
		return nil, c.SphereErr
	}
	cp := s2.CapFromCenterAngle(c.Points[0], s1.Angle(r))
	return &Region{cap: &cp}, nil
}

func center(v any) (*Region, error) {
	c, r, err := centerAndRadius(v, "$center")
	if err != nil {
		return nil, err
	}
	return &Region{circle: &[3]float64{c.X, c.Y, r}}, nil
}

func box(v any) (*Region, error) {
	a, ok := v.(bson.A)
	if !ok || len(a) != 2 {
		return nil, fmt.Errorf("Point must be an array or object")
	}
	p, err := ParseLegacy(a[0])
	if err != nil {
		return nil, err
	}
	q, err := ParseLegacy(a[1])
	if err != nil {
		return nil, err
	}
	b := [4]float64{math.Min(p.X, q.X), math.Min(p.Y, q.Y), math.Max(p.X, q.X), math.Max(p.Y, q.Y)}
	return &Region{box: &b}, nil
}

func flatPolygon(v any) (*Region, error) {
	a, ok := v.(bson.A)
	if !ok || len(a) < 3 {
		return nil, fmt.Errorf("Polygon must have at least 3 points")
	}
	if len(a) > maxVertices {
		return nil, fmt.Errorf("Polygon has more than %d points", maxVertices)
	}
	ring := make([][2]float64, 0, len(a))
	for _, e := range a {
		p, err := ParseLegacy(e)
		if err != nil {
			return nil, err
		}
		ring = append(ring, [2]float64{p.X, p.Y})
	}
	return &Region{ring: ring}, nil
}

// Flat reports a planar region ($box, $center, $polygon).
func (r *Region) Flat() bool { return r.box != nil || r.circle != nil || r.ring != nil }

// Contains reports whether g lies within r ($geoWithin).
func (r *Region) Contains(g *Geometry) bool {
	switch {
	case r.polys != nil:
		return polygonsContain(r.polys, g)
	case r.cap != nil:
		return capContains(*r.cap, g)
	}
	x, y, ok := flatPoint(g)
	if !ok {
		return false
	}
	switch {
	case r.box != nil:
		return x >= r.box[0] && x <= r.box[2] && y >= r.box[1] && y <= r.box[3]
	case r.circle != nil:
		return math.Hypot(x-r.circle[0], y-r.circle[1]) <= r.circle[2]
	}
	return inRing(r.ring, x, y)
}

// S2Region is the spherical region to cover for an index scan (nil for
// a flat region).
func (r *Region) S2Region() s2.Region {
	switch {
	case r.polys != nil:
		u := make(s2.RegionUnion, 0, len(r.polys))
		for _, p := range r.polys {
			u = append(u, p)
		}
		return u
	case r.cap != nil:
		return *r.cap
	}
	return nil
}

// flatPoint returns the planar coordinates of a one-point geometry.
func flatPoint(g *Geometry) (x, y float64, ok bool) {
	if g.Legacy {
		return g.X, g.Y, true
	}
	if g.IsPoint() {
		ll := s2.LatLngFromPoint(g.Points[0])
		return ll.Lng.Degrees(), ll.Lat.Degrees(), true
	}
	return 0, 0, false
}

// inRing is the planar point-in-polygon test of $polygon: crossing
// parity, with points on an edge inside.
func inRing(ring [][2]float64, x, y float64) bool {
	in := false
	for i, j := 0, len(ring)-1; i < len(ring); j, i = i, i+1 {
		xi, yi, xj, yj := ring[i][0], ring[i][1], ring[j][0], ring[j][1]
		if onSegment(xi, yi, xj, yj, x, y) {
			return true
		}
		if (yi > y) != (yj > y) && x < (xj-xi)*(y-yi)/(yj-yi)+xi {
			in = !in
		}
	}
	return in
}

func onSegment(x1, y1, x2, y2, x, y float64) bool {
	cross := (x2-x1)*(y-y1) - (y2-y1)*(x-x1)
	if math.Abs(cross) > 1e-12 {
		return false
	}
	return x >= math.Min(x1, x2) && x <= math.Max(x1, x2) && y >= math.Min(y1, y2) && y <= math.Max(y1, y2)
}

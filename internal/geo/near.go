package geo

import (
	"fmt"
	"math"

	"github.com/golang/geo/s1"
	"github.com/golang/geo/s2"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// Near is a $near / $nearSphere / $geoNear origin with its distance
// bounds, in the query's unit: meters (GeoJSON point), radians (spherical
// legacy) or coordinate units (flat legacy).
type Near struct {
	Center  *Geometry
	GeoJSON bool // the origin is a GeoJSON point: distances in meters
	Sphere  bool // spherical distances ($nearSphere, GeoJSON, spherical: true)
	Min     float64
	Max     float64 // +Inf when unbounded
}

// ParseNearOp reads {$near|$nearSphere: origin, $maxDistance, $minDistance}
// (ops is the whole operator document of the path).
func ParseNearOp(ops bson.D) (*Near, error) {
	n := &Near{Max: math.Inf(1)}
	var origin any
	for _, e := range ops {
		switch e.Key {
		case "$near", "$nearSphere":
			if origin != nil {
				return nil, fmt.Errorf("duplicate $near")
			}
			origin, n.Sphere = e.Value, e.Key == "$nearSphere"
		case "$maxDistance", "$minDistance":
			if err := n.setBound(e.Key, e.Value); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("invalid argument in geo near query: %s", e.Key)
		}
	}
	return n, n.setOrigin(origin)
}

// setOrigin reads [x, y], {x, y}, {$geometry: point, ...} or a GeoJSON point.
func (n *Near) setOrigin(v any) error {
	d, isDoc := v.(bson.D)
	if isDoc && len(d) > 0 && d[0].Key == "$geometry" {
		for _, e := range d[1:] {
			if err := n.setBound(e.Key, e.Value); err != nil {
				return err
			}
		}
		v, isDoc = d[0].Value, false
		if _, ok := v.(bson.D); !ok {
			return fmt.Errorf("$geometry must be a GeoJSON point: %s", bsonx.ToString(v))
		}
		isDoc = true
		d = v.(bson.D)
	}
	if _, hasType := bsonx.Get(d, "type"); isDoc && hasType {
		g, err := queryGeoJSON(d)
		if err != nil {
			return err
		}
		if !g.IsPoint() {
			return fmt.Errorf("$near requires a point, given %s", bsonx.ToString(v))
		}
		n.Center, n.GeoJSON, n.Sphere = g, true, true
		return nil
	}
	g, err := ParseLegacy(v)
	if err != nil {
		return fmt.Errorf("$near requires a point, given %s", bsonx.ToString(v))
	}
	n.Center = g
	return nil
}

func (n *Near) setBound(key string, v any) error {
	f, ok := bsonx.AsFloat64(v)
	if !ok {
		return fmt.Errorf("%s must be a number", key)
	}
	if f < 0 || math.IsNaN(f) {
		return fmt.Errorf("%s must be non-negative", key)
	}
	if key == "$maxDistance" || key == "maxDistance" {
		n.Max = f
	} else {
		n.Min = f
	}
	return nil
}

// Validate checks the origin for the distance kind chosen.
func (n *Near) Validate() error {
	if n.Sphere && n.Center.SphereErr != nil {
		return n.Center.SphereErr
	}
	if n.Sphere && !n.GeoJSON && n.Max != math.Inf(1) && n.Max > math.Pi {
		return fmt.Errorf("$maxDistance too large")
	}
	return nil
}

// Distance returns the distance from n's origin to g in n's unit; +Inf
// when it has none (a flat query against a shape other than a point).
func (n *Near) Distance(g *Geometry) float64 {
	if !n.Sphere {
		x, y, ok := flatPoint(g)
		if !ok {
			return math.Inf(1)
		}
		return math.Hypot(x-n.Center.X, y-n.Center.Y)
	}
	if n.Center.SphereErr != nil || !g.onSphere() {
		return math.Inf(1)
	}
	a := DistanceFrom(n.Center.Points[0], g)
	if n.GeoJSON {
		return a.Radians() * EarthRadiusMeters
	}
	return a.Radians()
}

// InRange reports whether a distance lies within [Min, Max].
func (n *Near) InRange(d float64) bool { return d >= n.Min && d <= n.Max }

// Cap returns the spherical cap of points within Max of the origin, and
// false when unbounded (or flat).
func (n *Near) Cap() (s2.Cap, bool) { return n.CapOf(n.Max) }

// CapOf returns the spherical cap of points within r (the query's unit)
// of the origin, and false when r is unbounded, covers the sphere, or the
// query is flat.
func (n *Near) CapOf(r float64) (s2.Cap, bool) {
	if !n.Sphere || n.Center.SphereErr != nil || math.IsInf(r, 1) {
		return s2.Cap{}, false
	}
	if n.GeoJSON {
		r /= EarthRadiusMeters
	}
	if r >= math.Pi {
		return s2.Cap{}, false
	}
	return s2.CapFromCenterAngle(n.Center.Points[0], s1.Angle(r)), true
}

// StartRadius is the first radius a nearest-first search tries, in the
// query's unit (about 1 km on the sphere, 1/16384 of a flat grid's side).
func (n *Near) StartRadius(g Grid) float64 {
	switch {
	case n.GeoJSON:
		return 1000
	case n.Sphere:
		return 1000 / EarthRadiusMeters
	}
	return (g.Max - g.Min) / 16384
}

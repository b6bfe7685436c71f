package geo

import (
	"math"

	"github.com/golang/geo/s1"
	"github.com/golang/geo/s2"
)

// shapes returns g's S2 shape index, built once.
func (g *Geometry) shapes() *s2.ShapeIndex {
	if g.index != nil {
		return g.index
	}
	idx := s2.NewShapeIndex()
	if len(g.Points) > 0 {
		pv := s2.PointVector(g.Points)
		idx.Add(&pv)
	}
	for _, l := range g.Lines {
		idx.Add(l)
	}
	for _, p := range g.Polygons {
		idx.Add(p)
	}
	g.index = idx
	return idx
}

// onSphere reports whether g has a spherical shape to test.
func (g *Geometry) onSphere() bool {
	return len(g.Points)+len(g.Lines)+len(g.Polygons) > 0
}

// Intersects reports whether a and b share at least one point (touching
// counts), as $geoIntersects.
func Intersects(a, b *Geometry) bool {
	if !a.onSphere() || !b.onSphere() {
		return false
	}
	q := s2.NewClosestEdgeQuery(a.shapes(), s2.NewClosestEdgeQueryOptions().IncludeInteriors(true))
	return q.IsDistanceLess(s2.NewMinDistanceToShapeIndexTarget(b.shapes()), s1.ChordAngle(0).Successor())
}

// DistanceFrom returns the angle from p to the nearest point of g (zero
// inside one of its polygons).
func DistanceFrom(p s2.Point, g *Geometry) s1.Angle {
	if g.IsPoint() {
		return p.Distance(g.Points[0])
	}
	if !g.onSphere() {
		return s1.Angle(math.Inf(1))
	}
	q := s2.NewClosestEdgeQuery(g.shapes(), s2.NewClosestEdgeQueryOptions().IncludeInteriors(true))
	return q.Distance(s2.NewMinDistanceToPointTarget(p)).Angle()
}

// polygonsContain reports whether the polygons (a region's parts) contain
// all of g: every point and polygon within one part, every line within
// one part without crossing its boundary.
func polygonsContain(polys []*s2.Polygon, g *Geometry) bool {
	if !g.onSphere() {
		return false
	}
	for _, p := range g.Points {
		if !anyPolygon(polys, func(r *s2.Polygon) bool { return r.ContainsPoint(p) }) {
			return false
		}
	}
	for _, l := range g.Lines {
		if !anyPolygon(polys, func(r *s2.Polygon) bool { return polygonContainsLine(r, l) }) {
			return false
		}
	}
	for _, q := range g.Polygons {
		if !anyPolygon(polys, func(r *s2.Polygon) bool { return r.Contains(q) }) {
			return false
		}
	}
	return true
}

func anyPolygon(polys []*s2.Polygon, f func(*s2.Polygon) bool) bool {
	for _, p := range polys {
		if f(p) {
			return true
		}
	}
	return false
}

// polygonContainsLine: every vertex inside and no edge crossing the
// boundary (the polygon's region is closed, so touching is inside).
func polygonContainsLine(r *s2.Polygon, l *s2.Polyline) bool {
	for _, v := range *l {
		if !r.ContainsPoint(v) {
			return false
		}
	}
	q := s2.NewCrossingEdgeQuery(s2IndexOf(r))
	for i := 0; i+1 < len(*l); i++ {
		if len(q.Crossings((*l)[i], (*l)[i+1], r, s2.CrossingTypeInterior)) > 0 {
			return false
		}
	}
	return true
}

func s2IndexOf(p *s2.Polygon) *s2.ShapeIndex {
	idx := s2.NewShapeIndex()
	idx.Add(p)
	return idx
}

// capContains reports whether every vertex of g lies in c (for caps under
// a hemisphere, which are convex, that holds the whole shape).
func capContains(c s2.Cap, g *Geometry) bool {
	if !g.onSphere() {
		return false
	}
	for _, p := range g.Points {
		if !c.ContainsPoint(p) {
			return false
		}
	}
	for _, l := range g.Lines {
		for _, v := range *l {
			if !c.ContainsPoint(v) {
				return false
			}
		}
	}
	for _, p := range g.Polygons {
		for _, l := range p.Loops() {
			for _, v := range l.Vertices() {
				if !c.ContainsPoint(v) {
					return false
				}
			}
		}
	}
	return true
}

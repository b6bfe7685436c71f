package geo

import (
	"fmt"
	"math"
)

// Grid is a 2d index's geohash grid: Bits bits per coordinate over
// [Min, Max) on both axes (MongoDB's defaults 26, -180, 180).
type Grid struct {
	Bits     int
	Min, Max float64
}

// DefaultGrid is a 2d index without options.
var DefaultGrid = Grid{Bits: 26, Min: -180, Max: 180}

// Hash returns the geohash of (x, y): the top Bits bits of each scaled
// coordinate, interleaved x first, as a NumberLong key.
func (g Grid) Hash(x, y float64) (int64, error) {
	if !(x >= g.Min && x < g.Max && y >= g.Min && y < g.Max) {
		return 0, fmt.Errorf("point not in interval of [ %v, %v ) :: caused by :: [ %v, %v ]", g.Min, g.Max, x, y)
	}
	scale := math.Exp2(32) / (g.Max - g.Min)
	ux := uint32((x - g.Min) * scale)
	uy := uint32((y - g.Min) * scale)
	var h uint64
	for i := 0; i < g.Bits; i++ {
		bit := uint(31 - i)
		h = h<<2 | uint64(ux>>bit&1)<<1 | uint64(uy>>bit&1)
	}
	h <<= uint(64 - 2*g.Bits)
	return int64(h ^ 1<<63), nil
}

// maxBoxCells bounds the geohash cells covering one box.
const maxBoxCells = 64

// CoverBox returns the key ranges of the geohash cells that cover the box
// [x0, x1] x [y0, y1] (clamped to the grid): the finest level at which at
// most maxBoxCells cells do, merged.
func (g Grid) CoverBox(x0, y0, x1, y1 float64) []KeyRange {
	ux0, ux1 := g.scaled(x0), g.scaled(x1)
	uy0, uy1 := g.scaled(y0), g.scaled(y1)
	for k := g.Bits; k >= 1; k-- {
		shift := uint(32 - k)
		ix0, ix1, iy0, iy1 := ux0>>shift, ux1>>shift, uy0>>shift, uy1>>shift
		if uint64(ix1-ix0+1)*uint64(iy1-iy0+1) > maxBoxCells {
			continue
		}
		var out []KeyRange
		for ix := ix0; ix <= ix1; ix++ {
			for iy := iy0; iy <= iy1; iy++ {
				out = append(out, cellRange(interleave(ix, iy, k), k))
			}
		}
		return mergeRanges(out)
	}
	return []KeyRange{{Lo: math.MinInt64, Hi: math.MaxInt64}}
}

// scaled maps a coordinate to the grid's 32-bit scale, clamped.
func (g Grid) scaled(v float64) uint32 {
	f := (v - g.Min) * (math.Exp2(32) / (g.Max - g.Min))
	switch {
	case !(f > 0):
		return 0
	case f >= math.Exp2(32):
		return math.MaxUint32
	}
	return uint32(f)
}

// interleave returns the 2k-bit cell prefix of cell (ix, iy) at level k,
// x bits first, as Hash lays them out.
func interleave(ix, iy uint32, k int) uint64 {
	var p uint64
	for i := k - 1; i >= 0; i-- {
		p = p<<2 | uint64(ix>>uint(i)&1)<<1 | uint64(iy>>uint(i)&1)
	}
	return p
}

// cellRange is the range of keys under a 2k-bit prefix.
func cellRange(prefix uint64, k int) KeyRange {
	shift := uint(64 - 2*k)
	lo := prefix << shift
	hi := lo | (uint64(1)<<shift - 1)
	return KeyRange{Lo: int64(lo ^ 1<<63), Hi: int64(hi ^ 1<<63)}
}

// FlatBox returns the bounding box of a flat region ($box, $center,
// $polygon), and false for spherical ones.
func (r *Region) FlatBox() (x0, y0, x1, y1 float64, ok bool) {
	switch {
	case r.box != nil:
		return r.box[0], r.box[1], r.box[2], r.box[3], true
	case r.circle != nil:
		c := r.circle
		return c[0] - c[2], c[1] - c[2], c[0] + c[2], c[1] + c[2], true
	case r.ring != nil:
		x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for _, p := range r.ring {
			x0, y0, x1, y1 = math.Min(x0, p[0]), math.Min(y0, p[1]), math.Max(x1, p[0]), math.Max(y1, p[1])
		}
		return x0, y0, x1, y1, true
	}
	return 0, 0, 0, 0, false
}

// FlatBox is the bounding box of a flat $near's disc, false when the
// query is spherical or unbounded.
func (n *Near) FlatBox() (x0, y0, x1, y1 float64, ok bool) { return n.FlatBoxOf(n.Max) }

// FlatBoxOf is the bounding box of the flat disc of radius r.
func (n *Near) FlatBoxOf(r float64) (x0, y0, x1, y1 float64, ok bool) {
	if n.Sphere || math.IsInf(r, 1) {
		return 0, 0, 0, 0, false
	}
	c := n.Center
	return c.X - r, c.Y - r, c.X + r, c.Y + r, true
}

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

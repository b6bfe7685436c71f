package agg

import (
	"math"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// rounder rounds bucket bounds to a granularity: a preferred-number
// series (its base values times powers of ten) or the powers of two.
// up gives the smallest series number strictly above v, down the largest
// strictly below (0 stays 0), as MongoDB's rounders do.
type rounder struct {
	name   string
	series []float64 // base values in [1, 10); nil: powers of two
}

var granularities = map[string][]float64{
	"1-2-5": {1, 2, 5},
	"R5":    {1.0, 1.6, 2.5, 4.0, 6.3},
	"R10":   {1.0, 1.25, 1.6, 2.0, 2.5, 3.15, 4.0, 5.0, 6.3, 8.0},
	"R20":   {1.0, 1.12, 1.25, 1.4, 1.6, 1.8, 2.0, 2.24, 2.5, 2.8, 3.15, 3.55, 4.0, 4.5, 5.0, 5.6, 6.3, 7.1, 8.0, 9.0},
	"E6":    {1.0, 1.5, 2.2, 3.3, 4.7, 6.8},
	"E12":   {1.0, 1.2, 1.5, 1.8, 2.2, 2.7, 3.3, 3.9, 4.7, 5.6, 6.8, 8.2},
	"E24":   {1.0, 1.1, 1.2, 1.3, 1.5, 1.6, 1.8, 2.0, 2.2, 2.4, 2.7, 3.0, 3.3, 3.6, 3.9, 4.3, 4.7, 5.1, 5.6, 6.2, 6.8, 7.5, 8.2, 9.1},
}

func granularityRounder(v any) (*rounder, error) {
	name, ok := v.(string)
	if !ok {
		return nil, mongoerr.New(mongoerr.BucketAutoBadSpec, "The $bucketAuto 'granularity' field must be a string, but found type: %s", typeOf(v))
	}
	if name == "POWERSOF2" {
		return &rounder{name: name}, nil
	}
	if s, ok := granularities[name]; ok {
		return &rounder{name: name, series: s}, nil
	}
	switch name {
	case "R40", "R80", "E48", "E96", "E192":
		// TODO(#14): the longer preferred-number series.
		return nil, mongoerr.New(mongoerr.NotImplemented, "$bucketAuto granularity %s is not supported yet", name)
	}
	return nil, mongoerr.New(mongoerr.BucketAutoBadGranularity, "Unknown rounding granularity '%s'", name)
}

// check refuses keys a granularity cannot round.
func (r *rounder) check(v any) error {
	if r == nil {
		return nil
	}
	f, ok := numberAsFloat(v)
	switch {
	case !ok:
		return mongoerr.New(mongoerr.BucketAutoNotNumeric, "$bucketAuto can specify a 'granularity' with numeric boundaries only, but found a value with type: %s", typeOf(v))
	case math.IsNaN(f):
		return mongoerr.New(mongoerr.BucketAutoNotNumeric, "$bucketAuto can specify a 'granularity' with numeric boundaries only, but found a NaN")
	case f < 0:
		return mongoerr.New(mongoerr.BucketAutoNotNumeric, "$bucketAuto can specify a 'granularity' with non-negative numbers only, but found a negative number")
	}
	return nil
}

func (r *rounder) up(v any) any {
	f, _ := numberAsFloat(v)
	if f == 0 {
		return v
	}
	if r.series == nil {
		return math.Pow(2, math.Floor(math.Log2(f))+1)
	}
	exp := math.Floor(math.Log10(f))
	for e := exp - 1; e <= exp+1; e++ {
		for _, s := range r.series {
			if x := s * math.Pow(10, e); x > f {
				return roundSeries(x)
			}
		}
	}
	return f
}

func (r *rounder) down(v any) any {
	f, _ := numberAsFloat(v)
	if f == 0 {
		return v
	}
	if r.series == nil {
		p := math.Pow(2, math.Floor(math.Log2(f)))
		if p == f {
			p /= 2
		}
		return p
	}
	exp := math.Floor(math.Log10(f))
	best := 0.0
	for e := exp - 1; e <= exp+1; e++ {
		for _, s := range r.series {
			if x := s * math.Pow(10, e); x < f {
				best = x
			}
		}
	}
	return roundSeries(best)
}

// roundSeries drops the float noise of base*10^e (1.6*100 = 160.00000000000003).
func roundSeries(x float64) float64 {
	if x == 0 {
		return 0
	}
	scale := math.Pow(10, 12-math.Floor(math.Log10(x)))
	return math.Round(x*scale) / scale
}

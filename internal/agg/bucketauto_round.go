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
	"R40":   {1.0, 1.06, 1.12, 1.18, 1.25, 1.32, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2.0, 2.12, 2.24, 2.36, 2.5, 2.65, 2.8, 3.0, 3.15, 3.35, 3.55, 3.75, 4.0, 4.25, 4.5, 4.75, 5.0, 5.3, 5.6, 6.0, 6.3, 6.7, 7.1, 7.5, 8.0, 8.5, 9.0, 9.5},
	"R80":   {1.0, 1.03, 1.06, 1.09, 1.12, 1.15, 1.18, 1.22, 1.25, 1.28, 1.32, 1.36, 1.4, 1.45, 1.5, 1.55, 1.6, 1.65, 1.7, 1.75, 1.8, 1.85, 1.9, 1.95, 2.0, 2.06, 2.12, 2.18, 2.24, 2.3, 2.36, 2.43, 2.5, 2.58, 2.65, 2.72, 2.8, 2.9, 3.0, 3.07, 3.15, 3.25, 3.35, 3.45, 3.55, 3.65, 3.75, 3.87, 4.0, 4.12, 4.25, 4.37, 4.5, 4.62, 4.75, 4.87, 5.0, 5.15, 5.3, 5.45, 5.6, 5.8, 6.0, 6.15, 6.3, 6.5, 6.7, 6.9, 7.1, 7.3, 7.5, 7.75, 8.0, 8.25, 8.5, 8.75, 9.0, 9.25, 9.5, 9.75},
	"E48":   {1.0, 1.05, 1.1, 1.15, 1.21, 1.27, 1.33, 1.4, 1.47, 1.54, 1.62, 1.69, 1.78, 1.87, 1.96, 2.05, 2.15, 2.26, 2.37, 2.49, 2.61, 2.74, 2.87, 3.01, 3.16, 3.32, 3.48, 3.65, 3.83, 4.02, 4.22, 4.42, 4.64, 4.87, 5.11, 5.36, 5.62, 5.9, 6.19, 6.49, 6.81, 7.15, 7.5, 7.87, 8.25, 8.66, 9.09, 9.53},
	"E96":   {1.0, 1.02, 1.05, 1.07, 1.1, 1.13, 1.15, 1.18, 1.21, 1.24, 1.27, 1.3, 1.33, 1.37, 1.4, 1.43, 1.47, 1.5, 1.54, 1.58, 1.62, 1.65, 1.69, 1.74, 1.78, 1.82, 1.87, 1.91, 1.96, 2.0, 2.05, 2.1, 2.15, 2.21, 2.26, 2.32, 2.37, 2.43, 2.49, 2.55, 2.61, 2.67, 2.74, 2.8, 2.87, 2.94, 3.01, 3.09, 3.16, 3.24, 3.32, 3.4, 3.48, 3.57, 3.65, 3.74, 3.83, 3.92, 4.02, 4.12, 4.22, 4.32, 4.42, 4.53, 4.64, 4.75, 4.87, 4.99, 5.11, 5.23, 5.36, 5.49, 5.62, 5.76, 5.9, 6.04, 6.19, 6.34, 6.49, 6.65, 6.81, 6.98, 7.15, 7.32, 7.5, 7.68, 7.87, 8.06, 8.25, 8.45, 8.66, 8.87, 9.09, 9.31, 9.53, 9.76},
}

func granularityRounder(v any) (*rounder, error) {
	name, ok := v.(string)
	if !ok {
		return nil, mongoerr.New(mongoerr.BucketAutoGranNotString, "The $bucketAuto 'granularity' field must be a string, but found type: %s", typeOf(v))
	}
	if name == "POWERSOF2" {
		return &rounder{name: name}, nil
	}
	if s, ok := granularities[name]; ok {
		return &rounder{name: name, series: s}, nil
	}
	switch name {
	case "E192":
		// TODO(#14): the E192 series.
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
		return mongoerr.New(mongoerr.BucketAutoNaN, "$bucketAuto can specify a 'granularity' with numeric boundaries only, but found a NaN")
	case f < 0:
		return mongoerr.New(mongoerr.BucketAutoNegative, "$bucketAuto can specify a 'granularity' with non-negative numbers only, but found a negative number")
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

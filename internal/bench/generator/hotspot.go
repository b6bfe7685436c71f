package generator

import "math/rand/v2"

// Hotspot sends a fraction hotOpn of draws to the lowest hotSet fraction of
// [lb, ub] and the rest to the remainder, uniformly within each part
// (YCSB's HotspotIntegerGenerator).
type Hotspot struct {
	lb, hot, cold int64
	hotOpn        float64
}

// NewHotspot mirrors YCSB's constructor: out-of-range fractions become 0
// and swapped bounds are put in order.
func NewHotspot(lb, ub int64, hotSet, hotOpn float64) *Hotspot {
	if hotSet < 0 || hotSet > 1 {
		hotSet = 0
	}
	if hotOpn < 0 || hotOpn > 1 {
		hotOpn = 0
	}
	if lb > ub {
		lb, ub = ub, lb
	}
	interval := ub - lb + 1
	hot := int64(float64(interval) * hotSet)
	return &Hotspot{lb: lb, hot: hot, cold: interval - hot, hotOpn: hotOpn}
}

// Next returns the next value.
func (h *Hotspot) Next(r *rand.Rand) int64 {
	// YCSB would divide by zero on an empty part; we fall to the other one.
	if (r.Float64() < h.hotOpn && h.hot > 0) || h.cold == 0 {
		return h.lb + r.Int64N(h.hot)
	}
	return h.lb + h.hot + r.Int64N(h.cold)
}

// Discrete chooses among named values by weight (YCSB's DiscreteGenerator,
// used to pick the next operation).
type Discrete struct {
	names   []string
	weights []float64 // raw weights, same order as names
	sum     float64
}

// NewDiscrete returns an empty chooser; add values with Add.
func NewDiscrete() *Discrete { return &Discrete{} }

// Add appends a value with a weight; non-positive weights are ignored.
func (d *Discrete) Add(weight float64, name string) {
	if weight <= 0 {
		return
	}
	d.names = append(d.names, name)
	d.weights = append(d.weights, weight)
	d.sum += weight
}

// Len is the number of values with a positive weight.
func (d *Discrete) Len() int { return len(d.names) }

// Next picks a name; an empty chooser returns "".
func (d *Discrete) Next(r *rand.Rand) string {
	v := r.Float64()
	for i, w := range d.weights {
		if pw := w / d.sum; v < pw {
			return d.names[i]
		} else {
			v -= pw
		}
	}
	if len(d.names) == 0 {
		return ""
	}
	return d.names[len(d.names)-1] // rounding left v just above the sum
}

package agg

import "testing"

// TestGranularitySeries: each preferred-number series has its size, is
// increasing within [1, 10), and rounds up and down strictly.
func TestGranularitySeries(t *testing.T) {
	sizes := map[string]int{"1-2-5": 3, "R5": 5, "R10": 10, "R20": 20, "R40": 40, "R80": 80,
		"E6": 6, "E12": 12, "E24": 24, "E48": 48, "E96": 96}
	for name, n := range sizes {
		s := granularities[name]
		if len(s) != n {
			t.Fatalf("%s has %d values, want %d", name, len(s), n)
		}
		for i, v := range s {
			if v < 1 || v >= 10 || (i > 0 && v <= s[i-1]) {
				t.Fatalf("%s[%d] = %v out of order", name, i, v)
			}
		}
		r := &rounder{name: name, series: s}
		for _, v := range []float64{0.37, 1, 4.2, 99, 1234.5} {
			up, _ := numberAsFloat(r.up(v))
			down, _ := numberAsFloat(r.down(v))
			if !(up > v && down < v) {
				t.Fatalf("%s: up(%v) = %v, down = %v", name, v, up, down)
			}
		}
	}
	if len(granularities) != len(sizes) {
		t.Fatalf("untested series: %d of %d", len(sizes), len(granularities))
	}
}

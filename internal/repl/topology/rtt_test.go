package topology

import (
	"testing"
	"time"
)

func TestRTTWindowIsRecentMinimum(t *testing.T) {
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	var w rttWindow
	steps := []struct{ sample, want float64 }{
		{3, 3}, // first sample
		{9, 3}, // a slow heartbeat does not move the estimate
		{2, 2}, // a faster one does
		{5, 2}, {5, 2}, {5, 2}, {5, 2}, {5, 2}, {5, 2},
		{5, 2}, // the 2 ms sample is still one of the last 8
		{5, 5}, // it aged out: the member is now 5 ms away
	}
	for i, s := range steps {
		if got := w.add(ms(s.sample)); got != ms(s.want) {
			t.Fatalf("step %d: add(%vms) = %v, want %vms", i, s.sample, got, s.want)
		}
	}
}

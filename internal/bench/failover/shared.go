package failover

import "time"

// The pure measurements below are exported for
// internal/bench/shardfailover, which measures a shard's failover from the
// same kind of operation log; they only forward to this package's own.

// ComputeWindow is what acks, fails and stalls (each in increasing order)
// show around a kill at kill, looking at events in [from, to]: the longest
// gap between consecutive acks after the kill, first failed/stalled to the
// next ack, counts.
func ComputeWindow(acks, fails, stalls []time.Time, kill, from, to time.Time) Window {
	return window(acks, fails, stalls, kill, from, to)
}

// Summarize returns the median, min and max of ds (the zero Stat when
// empty); the median of an even count is the mean of the middle two.
func Summarize(ds []time.Duration) Stat { return summarize(ds) }

// Percentile returns the p-th percentile (0..100, nearest rank) of ms.
func Percentile(ms []float64, p float64) float64 { return percentile(ms, p) }

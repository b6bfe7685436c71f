package failover

import (
	"context"
	"fmt"
	"time"

	"github.com/relaydb/relaydb/internal/cluster"
)

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

// KillPrimary lets the load run settle, then kills c's primary with
// kill -9 and returns it (nil when there was none) and the time of the
// kill. The error is a trial's Err text.
func KillPrimary(ctx context.Context, c *cluster.Cluster, settle time.Duration) (old *cluster.Member, kill time.Time, err error) {
	if err := sleepCtx(ctx, settle); err != nil {
		return nil, time.Time{}, err
	}
	if old, err = c.WaitPrimary(ctx); err != nil {
		return nil, time.Time{}, fmt.Errorf("no primary before the kill: %w", err)
	}
	kill = time.Now()
	if _, err := c.Kill(ctx, old.Name); err != nil {
		return old, kill, fmt.Errorf("kill -9: %w", err)
	}
	return old, kill, nil
}

// WaitUntil polls f every pollInterval until it is true or ctx is done.
func WaitUntil(ctx context.Context, f func() bool) error { return waitUntil(ctx, f) }

// SleepCtx sleeps d, or less when ctx is done (then its error).
func SleepCtx(ctx context.Context, d time.Duration) error { return sleepCtx(ctx, d) }

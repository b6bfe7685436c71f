package suite

import (
	"context"
	"time"
)

// A node is quiet when it used under settleIdle of CPU in a settleWindow
// (5 % of a core); settle waits at most settleMax for that.
const (
	settleWindow = time.Second
	settleIdle   = 50 * time.Millisecond
	settleMax    = 60 * time.Second
)

// settle waits until the server is quiet (its background work after a
// load, Pebble's compactions above all, done), so that the reads measured
// next are not charged with it. cpu reads the server's CPU time in µs
// (the phases' own source, serverStatus). It returns the CPU used
// meanwhile (to be charged to the load) and how long it waited; past
// settleMax it returns what it has.
func settle(ctx context.Context, cpu func(context.Context) (int64, error)) (cpuMicros int64, took time.Duration, err error) {
	start := time.Now()
	first, err := cpu(ctx)
	if err != nil {
		return 0, 0, err
	}
	last := first
	for time.Since(start) < settleMax {
		select {
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		case <-time.After(settleWindow):
		}
		now, err := cpu(ctx)
		if err != nil {
			return 0, 0, err
		}
		quiet := time.Duration(now-last)*time.Microsecond < settleIdle
		last = now
		if quiet {
			break
		}
	}
	return last - first, time.Since(start), nil
}

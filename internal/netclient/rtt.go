package netclient

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// rttAlpha weighs a new round trip in the average (SDAM's EWMA, 0.2).
const rttAlpha = 0.2

// rttProbe measures m's round trip every heartbeat (MaxAwait) on its own
// connection with a hello that does not wait, as the drivers' RTT
// monitor does beside a streaming monitor (whose awaitable hellos' times
// are waits, not latency). It runs until ctx ends (the member's monitor
// stopped) or the pool closes; a failed probe drops its connection and
// the next one dials again. Each probe is bounded by helloTimeout.
func (s *ReplicaSet) rttProbe(ctx context.Context, m *member) {
	var c *Conn
	defer func() {
		if c != nil {
			_ = c.Close()
		}
	}()
	t := time.NewTicker(s.opts.MaxAwait)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		case <-s.pool.done:
			return
		}
		var err error
		if c == nil {
			if c, err = s.dialProbe(ctx, m.host); err != nil {
				continue
			}
		}
		if d, err := probeOnce(ctx, c); err != nil {
			_ = c.Close()
			c = nil
		} else {
			s.recordRTT(m, d)
		}
	}
}

func (s *ReplicaSet) dialProbe(ctx context.Context, host string) (*Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, s.pool.opts.DialTimeout)
	defer cancel()
	return s.pool.Dial(ctx, host)
}

// probeOnce times one hello on c.
func probeOnce(ctx context.Context, c *Conn) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, helloTimeout)
	defer cancel()
	start := time.Now()
	if _, err := c.Run(ctx, "admin", bson.D{{Key: "hello", Value: int32(1)}}); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// recordRTT folds a round trip into m's average: the first sample is
// taken as is, then avg = alpha*sample + (1-alpha)*avg.
func (s *ReplicaSet) recordRTT(m *member, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m.rtt == 0 {
		m.rtt = max(d, time.Nanosecond)
		return
	}
	m.rtt = time.Duration(rttAlpha*float64(d) + (1-rttAlpha)*float64(m.rtt))
}

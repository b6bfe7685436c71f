package server

import (
	"errors"
	"net"
	"time"
)

// Accept failures (EMFILE at the descriptor limit, ECONNABORTED, ...) are
// retried after a backoff, as net/http's Server.Serve does: 5 ms doubling to
// 1 s while Accept keeps failing, back to 5 ms after a success. Warnings are
// throttled to one per acceptLogInterval, carrying the count of the
// failures they stand for.
const (
	acceptBackoffMin  = 5 * time.Millisecond
	acceptBackoffMax  = time.Second
	acceptLogInterval = 10 * time.Second
)

// backoff is a doubling delay between acceptBackoffMin and acceptBackoffMax.
type backoff struct{ d time.Duration }

func (b *backoff) next() time.Duration {
	b.d = min(max(2*b.d, acceptBackoffMin), acceptBackoffMax)
	return b.d
}

func (b *backoff) reset() { b.d = 0 }

// logThrottle lets one event through per interval and counts the others.
// Invariant: suppressed counts events since last that were not let through.
type logThrottle struct {
	interval   time.Duration
	last       time.Time // when an event was last let through; zero: never
	suppressed int
}

// allow reports whether the event at now should be logged and, if so, how
// many events were suppressed since the previous one logged.
func (l *logThrottle) allow(now time.Time) (bool, int) {
	if !l.last.IsZero() && now.Sub(l.last) < l.interval {
		l.suppressed++
		return false, 0
	}
	n := l.suppressed
	l.last, l.suppressed = now, 0
	return true, n
}

func (s *Server) acceptLoop(l net.Listener) {
	var delay backoff
	failures := logThrottle{interval: acceptLogInterval}
	refusals := logThrottle{interval: acceptLogInterval}
	ipRefused := logThrottle{interval: acceptLogInterval}
	for {
		nc, err := l.Accept()
		if err != nil {
			if s.isClosed() || errors.Is(err, net.ErrClosed) {
				return
			}
			d := delay.next()
			if ok, n := failures.allow(s.now()); ok {
				s.log.Warn("accept failed; retrying with backoff", "err", err, "backoffMillis", d.Milliseconds(), "suppressed", n)
			}
			s.sleep(d)
			continue
		}
		delay.reset()
		if !s.admit(nc, &ipRefused) {
			continue
		}
		if s.cfg.MaxConns > 0 && s.open.Load() >= int64(s.cfg.MaxConns) {
			if ok, n := refusals.allow(s.now()); ok {
				s.log.Warn("connection refused: too many open connections",
					"remote", nc.RemoteAddr().String(), "maxConns", s.cfg.MaxConns, "suppressed", n)
			}
			nc.Close()
			continue
		}
		if !s.startConn(nc) {
			return
		}
	}
}

// startConn serves nc on its own goroutine; false when the server is closed.
func (s *Server) startConn(nc net.Conn) bool {
	c := s.newConn(nc)
	if c == nil {
		nc.Close()
		return false
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		c.serve()
	}()
	return true
}

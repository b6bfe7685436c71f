package server

import (
	"net"

	"github.com/relaydb/relaydb/internal/allowlist"
)

// The IP allowlist (Config.Allowlist, package allowlist) is enforced at two
// points: the accept loop closes a connection from an excluded address
// before reading a byte of it (admit), and a watcher closes the open
// connections a newly published policy excludes (closeExcluded), so a
// change takes effect on existing connections as soon as it is stored.
// Refusals are logged like the accept loop's other refusals: at most one
// warning per acceptLogInterval, carrying the count suppressed since.

// admit reports whether nc may be served; otherwise it closes nc, counts
// and (throttled) logs the refusal.
func (s *Server) admit(nc net.Conn, refusals *logThrottle) bool {
	m := s.cfg.Allowlist
	if m == nil || m.Admit(nc.RemoteAddr()) {
		return true
	}
	nc.Close()
	if ok, n := refusals.allow(s.now()); ok {
		s.log.Warn("connection refused: address not in the IP allowlist",
			"remote", nc.RemoteAddr().String(), "suppressed", n)
	}
	return false
}

// startAllowlistWatch closes open connections whenever the allowlist
// changes, until the returned stop is called.
func (s *Server) startAllowlistWatch() (stop func()) {
	m := s.cfg.Allowlist
	if m == nil {
		return func() {}
	}
	changed, done := m.Subscribe(), make(chan struct{})
	go func() {
		for {
			select {
			case <-changed:
				s.closeExcluded(m.Policy())
			case <-done:
				return
			}
		}
	}()
	return func() { close(done) }
}

// closeExcluded closes every open connection p does not allow.
func (s *Server) closeExcluded(p *allowlist.Policy) {
	var excluded []*conn
	s.mu.Lock()
	for c := range s.mu.conns {
		if !p.AllowsNet(c.nc.RemoteAddr()) {
			excluded = append(excluded, c)
		}
	}
	s.mu.Unlock()
	s.cfg.Allowlist.CountClosed(len(excluded)) // before closing: counted once a client sees it
	for _, c := range excluded {
		s.log.Warn("closing connection: address no longer in the IP allowlist",
			"remote", c.nc.RemoteAddr().String(), "conn", c.state.ID)
		c.nc.Close()
	}
}

package netclient

import "time"

// MemberStatus is one member as the set's monitor last saw it (what
// mongos reports in connPoolStats.replicaSets).
type MemberStatus struct {
	Host      string
	OK        bool // the last check succeeded
	Primary   bool // the member the set takes for its primary
	Secondary bool
	// PingTime is the round trip of the last hello that did not wait
	// (the first one on a connection).
	PingTime time.Duration
}

// Members returns the known members in the order they became known.
func (s *ReplicaSet) Members() []MemberStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]MemberStatus, 0, len(s.mu.order))
	for _, h := range s.mu.order {
		m := s.mu.members[h]
		out = append(out, MemberStatus{
			Host:      h,
			OK:        m.state != unknown && m.state != unchecked && m.err == nil,
			Primary:   h == s.mu.primary,
			Secondary: m.state == secondary,
			PingTime:  m.rtt,
		})
	}
	return out
}

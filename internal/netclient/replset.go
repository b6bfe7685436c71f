package netclient

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Defaults of ReplicaSetOptions (the drivers' SDAM values).
const (
	// defaultMaxAwait is maxAwaitTimeMS of the awaitable hello, and the
	// polling interval of a member that does not support it
	// (heartbeatFrequencyMS).
	defaultMaxAwait = 10 * time.Second
	// defaultSelectTimeout bounds waiting for a primary: an election takes
	// a few seconds; mongos waits up to 20 s for a host to match.
	defaultSelectTimeout = 20 * time.Second
	// defaultIdleStop stops the monitors of a set no caller used that long.
	defaultIdleStop = time.Minute
	// helloTimeout bounds one hello (beyond maxAwaitTimeMS when awaitable).
	helloTimeout = 2 * time.Second
	// minHeartbeat is the least time between two checks of a member that
	// failed (minHeartbeatFrequencyMS).
	minHeartbeat = 500 * time.Millisecond
)

// ReplicaSetOptions configure a ReplicaSet.
type ReplicaSetOptions struct {
	// Name is the expected setName; "" accepts the set of the first
	// member that answers.
	Name  string
	Seeds []string
	// MaxAwait is the awaitable hello's maxAwaitTimeMS; 0 means 10 s.
	MaxAwait time.Duration
	// SelectTimeout bounds waiting for a primary; 0 means 20 s.
	SelectTimeout time.Duration
	// IdleStop stops the monitors after that long without a caller (they
	// start again on the next use); 0 means 1 minute.
	IdleStop time.Duration
	Logger   *slog.Logger
}

// memberState is what the monitor last learned of a member.
type memberState int

const (
	unchecked memberState = iota // no hello answered yet
	unknown                      // the last check failed
	primary
	secondary
	other // arbiter, recovering, startup, or not of this set
)

// member is one host of the set and its monitor's state; REQUIRES: the
// set's mu.
type member struct {
	host       string
	state      memberState
	electionID bson.ObjectID
	err        error
	running    bool               // a monitor goroutine is running
	cancel     context.CancelFunc // of the check in flight, nil if none
	recheck    bool               // MarkFailed: the next check is not awaitable
	rtt        time.Duration      // EWMA of the hellos that did not wait; 0: none yet
	tags       map[string]string  // from the last hello
	lastWrite  time.Time          // lastWrite.lastWriteDate of the last hello
	lastUpdate time.Time          // when the last hello was read
	wake       chan struct{}      // buffered 1: check now
}

// ReplicaSet follows one replica set from a seed list: a monitor per
// member runs awaitable hello (topologyVersion + maxAwaitTimeMS), so a
// new primary is known as soon as it is elected, learns the members from
// hello's hosts, and commands go over the Pool's connections to the
// primary. It is safe for concurrent use.
//
// Invariants:
//   - Only a member that itself answers isWritablePrimary with this set's
//     name is the primary; of several, the one with the newest electionId.
//   - Monitors run only while the set is used (IdleStop) and stop when the
//     set or its Pool is closed; each holds one dedicated connection, and
//     its RTT probe (rtt.go), stopped with it, another.
//   - A member's round-trip time averages only hellos that did not wait
//     (an awaitable hello's wait is not latency).
//   - Every wait (for a primary, for a first check) is bounded.
type ReplicaSet struct {
	opts ReplicaSetOptions
	pool *Pool
	log  *slog.Logger
	ctx  context.Context // cancelled by Close
	stop context.CancelFunc
	mu   struct {
		sync.Mutex
		name    string
		members map[string]*member
		order   []string // hosts in the order they became known
		primary string   // "" when none is known
		changed chan struct{}
		lastUse time.Time
	}
}

// NewReplicaSet returns a client of the set; its monitors start on the
// first use.
func NewReplicaSet(pool *Pool, opts ReplicaSetOptions) *ReplicaSet {
	if opts.MaxAwait <= 0 {
		opts.MaxAwait = defaultMaxAwait
	}
	if opts.SelectTimeout <= 0 {
		opts.SelectTimeout = defaultSelectTimeout
	}
	if opts.IdleStop <= 0 {
		opts.IdleStop = defaultIdleStop
	}
	if opts.Logger == nil {
		opts.Logger = pool.opts.Logger
	}
	s := &ReplicaSet{opts: opts, pool: pool, log: opts.Logger}
	s.ctx, s.stop = context.WithCancel(context.Background())
	s.mu.name = opts.Name
	s.mu.members = map[string]*member{}
	s.mu.changed = make(chan struct{})
	for _, h := range opts.Seeds {
		s.addLocked(h)
	}
	return s
}

// Name returns the set's name ("" until learned when none was given).
func (s *ReplicaSet) Name() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mu.name
}

// Pool returns the pool commands go through.
func (s *ReplicaSet) Pool() *Pool { return s.pool }

// Close stops the monitors; later calls fail.
func (s *ReplicaSet) Close() { s.stop() }

func (s *ReplicaSet) closed() bool {
	select {
	case <-s.ctx.Done():
		return true
	case <-s.pool.done:
		return true
	default:
		return false
	}
}

// Primary returns the primary's host, waiting (up to SelectTimeout or
// ctx) until one is known.
func (s *ReplicaSet) Primary(ctx context.Context) (string, error) {
	return s.selectHost(ctx, "primary", func() string { return s.mu.primary })
}

// PrimaryPreferred returns the primary's host, or a secondary's when no
// primary is known, waiting (up to SelectTimeout or ctx) for either. A
// secondary is chosen only once every known member answered or failed a
// check: while a set is being discovered its primary may simply not have
// answered yet, and a lagging secondary's majority read could be older
// than what the caller saw (a shard that just got its shardIdentity
// reading config.shards without the new shard).
func (s *ReplicaSet) PrimaryPreferred(ctx context.Context) (string, error) {
	return s.selectHost(ctx, "primaryPreferred", func() string {
		if s.mu.primary != "" {
			return s.mu.primary
		}
		pick := ""
		for _, h := range s.mu.order {
			switch s.mu.members[h].state {
			case unchecked:
				return ""
			case secondary:
				if pick == "" {
					pick = h
				}
			}
		}
		return pick
	})
}

// selectHost waits until pick (called under mu) names a host.
func (s *ReplicaSet) selectHost(ctx context.Context, mode string, pick func() string) (string, error) {
	s.mu.Lock()
	s.useLocked()
	h := pick()
	s.mu.Unlock()
	if h != "" && !s.closed() {
		return h, nil // the common case: no timer, no wait
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.SelectTimeout)
	defer cancel()
	for {
		if s.closed() {
			return "", fmt.Errorf("netclient: replica set %s: closed", s.Name())
		}
		s.mu.Lock()
		s.useLocked()
		h, ch := pick(), s.mu.changed
		s.mu.Unlock()
		if h != "" {
			return h, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return "", mongoerr.New(mongoerr.FailedToSatisfyReadPreference,
				"Could not find host matching read preference { mode: \"%s\" } for set %s (%s)", mode, s.Name(), s.lastErrors())
		case <-s.ctx.Done():
		case <-s.pool.done:
		}
	}
}

// Secondaries returns the members in state SECONDARY, waiting (up to
// helloTimeout or ctx) until every known member was checked once.
func (s *ReplicaSet) Secondaries(ctx context.Context) []string {
	ctx, cancel := context.WithTimeout(ctx, helloTimeout)
	defer cancel()
	for {
		s.mu.Lock()
		s.useLocked()
		var out []string
		all := true
		for _, h := range s.mu.order {
			m := s.mu.members[h]
			all = all && m.state != unchecked
			if m.state == secondary {
				out = append(out, h)
			}
		}
		ch := s.mu.changed
		s.mu.Unlock()
		if all || s.closed() {
			return out
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return out
		}
	}
}

// Hosts returns every member known so far (seeds and hello's hosts).
func (s *ReplicaSet) Hosts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.mu.order)
}

// MarkFailed is told that host failed a command (a network error or a
// "not primary" reply): it is no longer taken for the primary, its idle
// connections are closed, and every member is checked at once.
func (s *ReplicaSet) MarkFailed(host string, err error) {
	s.mu.Lock()
	if m := s.mu.members[host]; m != nil {
		if m.state == primary || m.state == secondary {
			m.state, m.err = unknown, err // until its monitor's next check
		}
		m.recheck = true
		if m.cancel != nil {
			m.cancel() // an awaitable hello may be waiting on a dead host
		}
	}
	s.setPrimaryLocked()
	for _, m := range s.mu.members {
		select {
		case m.wake <- struct{}{}:
		default:
		}
	}
	s.mu.Unlock()
	s.pool.Forget(host)
}

// addLocked adds host as a member; REQUIRES: mu.
func (s *ReplicaSet) addLocked(host string) *member {
	if m := s.mu.members[host]; m != nil {
		return m
	}
	m := &member{host: host, wake: make(chan struct{}, 1)}
	s.mu.members[host] = m
	s.mu.order = append(s.mu.order, host)
	if !s.mu.lastUse.IsZero() && time.Since(s.mu.lastUse) < s.opts.IdleStop {
		s.startLocked(m)
	}
	return m
}

// useLocked records a use and starts the monitors that are not running
// (a set that was idle starts from scratch); REQUIRES: mu.
func (s *ReplicaSet) useLocked() {
	idle := time.Since(s.mu.lastUse) >= s.opts.IdleStop
	s.mu.lastUse = time.Now()
	for _, h := range s.mu.order {
		m := s.mu.members[h]
		if !m.running {
			if idle {
				m.state = unchecked
			}
			s.startLocked(m)
		}
	}
	if idle {
		s.setPrimaryLocked()
	}
}

func (s *ReplicaSet) startLocked(m *member) {
	if s.closed() {
		return
	}
	m.running = true
	go s.monitor(m)
}

// setPrimaryLocked picks the primary from the members' states and wakes
// the waiters when anything changed; REQUIRES: mu.
func (s *ReplicaSet) setPrimaryLocked() {
	best := ""
	var bestID bson.ObjectID
	for _, h := range s.mu.order {
		m := s.mu.members[h]
		if m.state != primary {
			continue
		}
		if best == "" || newerElection(m.electionID, bestID) || (m.electionID == bestID && h == s.mu.primary) {
			best, bestID = h, m.electionID
		}
	}
	s.mu.primary = best
	close(s.mu.changed)
	s.mu.changed = make(chan struct{})
}

func (s *ReplicaSet) lastErrors() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := ""
	for _, h := range s.mu.order {
		if m := s.mu.members[h]; m.err != nil {
			out += fmt.Sprintf("%s: %v; ", h, m.err)
		}
	}
	if out == "" {
		return "no member is primary"
	}
	return out
}

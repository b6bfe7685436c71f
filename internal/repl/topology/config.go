package topology

import (
	"time"
)

// Relaydb's default timings, tuned for a LAN (MongoDB's are tuned for WANs:
// heartbeat 2 s, election timeout 10 s, catch-up unbounded). A primary that
// dies is noticed within ElectionTimeout (+ up to 15% random offset), the
// dry run and the real election take a few round trips, so failover on a
// LAN completes in under 2 s. The settings of the same names in a config
// (heartbeatIntervalMillis, electionTimeoutMillis, catchUpTimeoutMillis)
// override them.
const (
	DefaultHeartbeatInterval = 500 * time.Millisecond
	DefaultElectionTimeout   = 1500 * time.Millisecond
	DefaultCatchUpTimeout    = 1000 * time.Millisecond
	// DefaultChainFanout caps how many non-voting members chain off one
	// secondary in chainingMode "auto".
	DefaultChainFanout = 3
	// MaxMembers and MaxVotingMembers are MongoDB's limits.
	MaxMembers       = 50
	MaxVotingMembers = 7
	// MaxSyncSourceLag is MongoDB's maxSyncSourceLagSecs: a candidate this
	// far behind the primary is not chosen while a better one exists.
	MaxSyncSourceLag = 30 * time.Second
	// ChangeSyncSourceThreshold is MongoDB's changeSyncSourceThresholdMillis
	// (5 ms there; 1 ms on a LAN): a candidate must be this much closer than
	// the current source to replace it.
	ChangeSyncSourceThreshold = 1 * time.Millisecond
	// electionOffsetFraction bounds the random part of the election
	// timeout, as MongoDB's electionTimeoutOffsetLimitFraction (0.15).
	electionOffsetFraction = 0.15
)

// MemberConfig is one entry of a replica-set config's members array.
type MemberConfig struct {
	ID                 int
	Host               string
	Priority           float64 // default 1; 0 = never stands for election
	Votes              int     // 0 or 1; default 1
	Hidden             bool
	ArbiterOnly        bool
	SecondaryDelaySecs int
	Tags               map[string]string
	BuildIndexes       bool // default true
}

// Voter reports whether m's vote counts toward a majority.
func (m MemberConfig) Voter() bool { return m.Votes > 0 }

// Electable reports whether m may stand for election.
func (m MemberConfig) Electable() bool { return m.Priority > 0 && !m.ArbiterOnly }

// DataBearing reports whether m holds data (is not an arbiter).
func (m MemberConfig) DataBearing() bool { return !m.ArbiterOnly }

// WriteConcern is getLastErrorDefaults: the write concern used when a
// command gives none.
type WriteConcern struct {
	W        any // int or string ("majority" or a mode name); nil = 1
	J        bool
	WTimeout time.Duration
}

// Settings is a config's settings document. Zero durations mean "default".
type Settings struct {
	ChainingAllowed bool
	// ChainingMode is relaydb's extension: "" follows ChainingAllowed;
	// "auto" has voting members pull from the primary and non-voting
	// members chain off secondaries, at most ChainFanout per source.
	ChainingMode      string
	ChainFanout       int
	HeartbeatInterval time.Duration
	ElectionTimeout   time.Duration
	CatchUpTimeout    time.Duration // negative = unbounded, as MongoDB's -1
	// GetLastErrorModes maps a write-concern mode name to its tag
	// constraints: tag name -> number of distinct values that must have
	// the write.
	GetLastErrorModes    map[string]map[string]int
	GetLastErrorDefaults WriteConcern
}

// Config is a replica-set configuration (local.system.replset).
type Config struct {
	Name     string
	Version  int64
	Term     int64
	Members  []MemberConfig
	Settings Settings
	// WriteConcernMajorityJournalDefault: majority counts durable OpTimes.
	WriteConcernMajorityJournalDefault bool
}

// NewMember returns a member config with MongoDB's field defaults.
func NewMember(id int, host string) MemberConfig {
	return MemberConfig{ID: id, Host: host, Priority: 1, Votes: 1, BuildIndexes: true}
}

// Newer reports whether c is newer than other: configs order by (term,
// version), as MongoDB's ConfigVersionAndTerm.
func (c Config) Newer(other Config) bool {
	if c.Term != other.Term {
		return c.Term > other.Term
	}
	return c.Version > other.Version
}

// HeartbeatInterval returns the effective heartbeat interval.
func (c Config) HeartbeatInterval() time.Duration {
	return orDefault(c.Settings.HeartbeatInterval, DefaultHeartbeatInterval)
}

// ElectionTimeout returns the effective election timeout.
func (c Config) ElectionTimeout() time.Duration {
	return orDefault(c.Settings.ElectionTimeout, DefaultElectionTimeout)
}

// CatchUpTimeout returns the effective catch-up timeout (negative: none).
func (c Config) CatchUpTimeout() time.Duration {
	return orDefault(c.Settings.CatchUpTimeout, DefaultCatchUpTimeout)
}

// ChainFanout returns the effective per-source fan-out cap of mode "auto".
func (c Config) ChainFanout() int {
	if c.Settings.ChainFanout > 0 {
		return c.Settings.ChainFanout
	}
	return DefaultChainFanout
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// MemberIndex returns the index in Members of the member with _id id, or -1.
func (c Config) MemberIndex(id int) int {
	for i, m := range c.Members {
		if m.ID == id {
			return i
		}
	}
	return -1
}

// MemberByHost returns the index of the member with host, or -1.
func (c Config) MemberByHost(host string) int {
	for i, m := range c.Members {
		if m.Host == host {
			return i
		}
	}
	return -1
}

// Voters returns the number of voting members (arbiters included).
func (c Config) Voters() int {
	n := 0
	for _, m := range c.Members {
		if m.Voter() {
			n++
		}
	}
	return n
}

// MajorityVoteCount is the number of votes that wins an election.
func (c Config) MajorityVoteCount() int { return c.Voters()/2 + 1 }

// WriteMajority is the number of voting data-bearing members a write must
// reach to be majority-committed: min(voters/2+1, voters-arbiters).
func (c Config) WriteMajority() int {
	arbiters := 0
	for _, m := range c.Members {
		if m.Voter() && m.ArbiterOnly {
			arbiters++
		}
	}
	return min(c.MajorityVoteCount(), c.Voters()-arbiters)
}

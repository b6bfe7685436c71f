package cluster

import (
	"errors"
	"fmt"
	"time"
)

// Limits of a replica-set config, as MongoDB's.
const (
	MaxMembers = 50
	MaxVoters  = 7
)

// Role is what a member is for in the topology.
type Role string

// Member roles. Data members are electable voters (priority 1, votes 1);
// hidden members are priority-0 voters left out of hosts; delayed members
// are hidden, priority 0 and non-voting (as MongoDB recommends, so they do
// not hold up w:"majority"); read-only members are visible, priority 0,
// votes 0; the arbiter votes and holds no data.
const (
	RoleData     Role = "data"
	RoleHidden   Role = "hidden"
	RoleDelayed  Role = "delayed"
	RoleReadOnly Role = "readonly"
	RoleArbiter  Role = "arbiter"
)

// Spec describes a local replica set. Zero values mean the default written
// on each field.
type Spec struct {
	Name      string   // replica set name; default "rs0"
	Dir       string   // cluster directory; required
	Data      int      // electable data members; required, >= 1
	Arbiter   bool     // add one arbiter
	Hidden    int      // hidden, priority-0, voting members
	Delayed   int      // delayed (hidden, priority 0, votes 0) members
	DelaySecs int      // secondaryDelaySecs of delayed members; default 3600
	ReadOnly  int      // visible, priority-0, non-voting members
	BasePort  int      // first port, members take consecutive ports; 0 = free ports
	Chaining  string   // "auto" (default: relaydb's default for new sets), "true" (MongoDB's default) or "false"
	Bin       string   // relaydb binary; default the running executable
	ExtraArgs []string // appended to every member's serve arguments
	// MemberArgs are appended, after ExtraArgs, to the serve arguments of
	// the member of that name (m0, m1, ...): per-member settings such as
	// bench experiment's pairwise delays.
	MemberArgs map[string][]string `json:",omitempty"`
	// LocalMembers is how many members share this machine's memory (a
	// sharded cluster's parts set it to all of theirs); 0 = Count(). Each
	// member's cache budget is the machine default divided by it, unless
	// ExtraArgs or MemberArgs set one (cache.go).
	LocalMembers int `json:",omitempty"`
	// StartTimeout bounds the wait for each member to answer ping;
	// default 20 s.
	StartTimeout time.Duration `json:",omitempty"`
	// PrimaryTimeout bounds the wait for a primary after replSetInitiate;
	// default 30 s.
	PrimaryTimeout time.Duration `json:",omitempty"`
	// DieWithParent makes members get SIGKILL when the starting process
	// dies (Linux Pdeathsig); tests set it so no process outlives them.
	DieWithParent bool `json:",omitempty"`
	// Auth (--auth) and TLS (--tls) secure the set: Up generates Secrets
	// (security.go) unless they are given (a sharded cluster's parts
	// share one).
	Auth    bool     `json:",omitempty"`
	TLS     bool     `json:",omitempty"`
	Secrets *Secrets `json:",omitempty"`
	// AdminReady records that Up created the admin user: clients log in.
	AdminReady bool `json:",omitempty"`
}

// MemberSpec is one member as the config will describe it.
type MemberSpec struct {
	Name               string
	Role               Role
	Priority           float64
	Votes              int
	Hidden             bool
	ArbiterOnly        bool
	SecondaryDelaySecs int
}

// withDefaults returns s with zero fields set to their defaults.
func (s Spec) withDefaults() Spec {
	if s.Name == "" {
		s.Name = "rs0"
	}
	if s.Chaining == "" {
		s.Chaining = "auto"
	}
	if s.Delayed > 0 && s.DelaySecs == 0 {
		s.DelaySecs = 3600
	}
	if s.StartTimeout == 0 {
		s.StartTimeout = 20 * time.Second
	}
	if s.PrimaryTimeout == 0 {
		s.PrimaryTimeout = 30 * time.Second
	}
	return s
}

// Validate reports the first reason s cannot be started, or nil.
func (s Spec) Validate() error {
	s = s.withDefaults()
	switch {
	case s.Dir == "":
		return errors.New("cluster: a directory (--dir) is required")
	case s.Data < 1:
		return fmt.Errorf("cluster: --data must be at least 1 (an electable member), got %d", s.Data)
	case s.Hidden < 0 || s.Delayed < 0 || s.ReadOnly < 0:
		return errors.New("cluster: member counts must not be negative")
	case s.DelaySecs < 0:
		return fmt.Errorf("cluster: --delay must not be negative, got %d", s.DelaySecs)
	case s.Chaining != "true" && s.Chaining != "false" && s.Chaining != "auto":
		return fmt.Errorf("cluster: --chaining must be true, false or auto, not %q", s.Chaining)
	case s.BasePort < 0 || s.BasePort > 65535-s.Count()+1:
		return fmt.Errorf("cluster: --base-port %d leaves no room for %d ports", s.BasePort, s.Count())
	}
	if n := s.Count(); n > MaxMembers {
		return fmt.Errorf("cluster: %d members exceed the limit of %d", n, MaxMembers)
	}
	if v := s.Voters(); v > MaxVoters {
		return fmt.Errorf("cluster: %d voting members exceed the limit of %d (data %d + hidden %d + arbiter %d); make members read-only (--readonly) to add them without votes",
			v, MaxVoters, s.Data, s.Hidden, boolInt(s.Arbiter))
	}
	return nil
}

// Count is the number of members s describes.
func (s Spec) Count() int {
	return s.Data + s.Hidden + s.Delayed + s.ReadOnly + boolInt(s.Arbiter)
}

// Voters is the number of voting members s describes.
func (s Spec) Voters() int { return s.Data + s.Hidden + boolInt(s.Arbiter) }

// Members lists the members in config order (data, hidden, delayed,
// read-only, arbiter), named m0, m1, ...
func (s Spec) Members() []MemberSpec {
	s = s.withDefaults()
	var out []MemberSpec
	add := func(n int, m MemberSpec) {
		for i := 0; i < n; i++ {
			m.Name = fmt.Sprintf("m%d", len(out))
			out = append(out, m)
		}
	}
	add(s.Data, MemberSpec{Role: RoleData, Priority: 1, Votes: 1})
	add(s.Hidden, MemberSpec{Role: RoleHidden, Votes: 1, Hidden: true})
	add(s.Delayed, MemberSpec{Role: RoleDelayed, Hidden: true, SecondaryDelaySecs: s.DelaySecs})
	add(s.ReadOnly, MemberSpec{Role: RoleReadOnly})
	add(boolInt(s.Arbiter), MemberSpec{Role: RoleArbiter, Votes: 1, ArbiterOnly: true})
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

package topology

import (
	"fmt"
	"strings"
	"time"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// NewConfig returns a config with MongoDB's defaults (version 1, term 0,
// chaining allowed, majority journaled) holding members.
func NewConfig(name string, members ...MemberConfig) Config {
	return Config{
		Name: name, Version: 1, Members: members,
		Settings:                           Settings{ChainingAllowed: true},
		WriteConcernMajorityJournalDefault: true,
	}
}

// Validate checks c against MongoDB's rules for replica-set configs. Errors
// are InvalidReplicaSetConfig (93) with MongoDB-like messages.
func (c Config) Validate() error {
	if c.Name == "" {
		return invalid("_id (replica set name) must be a non-empty string")
	}
	if c.Version < 1 {
		return invalid("version field value of %d is out of range", c.Version)
	}
	if n := len(c.Members); n < 1 || n > MaxMembers {
		return invalid("Replica set configuration contains %d members, but must have at least 1 and no more than %d", n, MaxMembers)
	}
	for i, m := range c.Members {
		if err := m.validate(); err != nil {
			return invalid("%s for member: members.%d", err, i)
		}
	}
	if err := c.validateUnique(); err != nil {
		return err
	}
	if err := c.validateCounts(); err != nil {
		return err
	}
	if err := c.validateModes(); err != nil {
		return err
	}
	return c.Settings.validate()
}

func invalid(format string, args ...any) error {
	return mongoerr.New(mongoerr.InvalidReplicaSetConfig, format, args...)
}

// validate applies MongoDB's per-member rules (member_config.cpp).
func (m MemberConfig) validate() error {
	switch {
	case m.ID < 0 || m.ID > 255:
		return fmt.Errorf("_id field value of %d is out of range", m.ID)
	case strings.TrimSpace(m.Host) == "":
		return fmt.Errorf("bad or missing host field")
	case m.Votes != 0 && m.Votes != 1:
		return fmt.Errorf("votes field value is %d but must be 0 or 1", m.Votes)
	case m.Priority < 0 || m.Priority > 1000:
		return fmt.Errorf("priority field value of %g is out of range", m.Priority)
	case m.SecondaryDelaySecs < 0:
		return fmt.Errorf("secondaryDelaySecs field value of %d is out of range", m.SecondaryDelaySecs)
	case m.ArbiterOnly && m.Votes == 0:
		return fmt.Errorf("Arbiter must vote (cannot have 0 votes)")
	case m.ArbiterOnly && len(m.Tags) > 0:
		return fmt.Errorf("Cannot set tags on arbiters.")
	case m.ArbiterOnly && m.Priority != 0:
		return fmt.Errorf("priority must be 0 when arbiterOnly=true")
	}
	return m.validateElectable()
}

// validateElectable: a member with priority > 0 may become primary, so it
// must vote, serve current data, be visible and build indexes.
func (m MemberConfig) validateElectable() error {
	if m.Priority == 0 {
		return nil
	}
	switch {
	case m.Votes == 0:
		return fmt.Errorf("priority must be 0 when non-voting (votes:0)")
	case m.SecondaryDelaySecs > 0:
		return fmt.Errorf("priority must be 0 when secondaryDelaySecs is used")
	case m.Hidden:
		return fmt.Errorf("priority must be 0 when hidden=true")
	case !m.BuildIndexes:
		return fmt.Errorf("priority must be 0 when buildIndexes=false")
	}
	return nil
}

func (c Config) validateUnique() error {
	for i, a := range c.Members {
		for j := i + 1; j < len(c.Members); j++ {
			b := c.Members[j]
			if a.ID == b.ID {
				return invalid("Found two member configurations with same _id field, members.%d._id == members.%d._id == %d", i, j, a.ID)
			}
			if a.Host == b.Host {
				return invalid("Found two member configurations with same host field, members.%d.host == members.%d.host == %s", i, j, a.Host)
			}
		}
	}
	return nil
}

func (c Config) validateCounts() error {
	voters, electable := 0, 0
	for _, m := range c.Members {
		if m.Voter() {
			voters++
		}
		if m.Electable() {
			electable++
		}
	}
	if voters < 1 || voters > MaxVotingMembers {
		return invalid("Replica set configuration contains %d voting members, but must be at least 1 and no more than %d", voters, MaxVotingMembers)
	}
	if electable == 0 {
		return invalid("Replica set configuration must contain at least one non-arbiter member with priority > 0")
	}
	return nil
}

// validateModes checks getLastErrorModes: every constraint names a tag some
// member carries and asks for at least one distinct value.
func (c Config) validateModes() error {
	for name, mode := range c.Settings.GetLastErrorModes {
		for tag, n := range mode {
			if n < 1 {
				return invalid("Value of %d for tag %q in mode %q must be positive", n, tag, name)
			}
			if !c.hasTag(tag) {
				return invalid("No replica set member has tag %q, required by mode %q", tag, name)
			}
		}
	}
	return nil
}

func (c Config) hasTag(tag string) bool {
	for _, m := range c.Members {
		if _, ok := m.Tags[tag]; ok {
			return true
		}
	}
	return false
}

func (s Settings) validate() error {
	switch {
	case s.ChainingMode != "" && s.ChainingMode != "auto":
		return invalid("settings.chainingMode must be \"\" or \"auto\", not %q", s.ChainingMode)
	case s.ChainingMode == "auto" && !s.ChainingAllowed:
		return invalid("settings.chainingMode \"auto\" requires settings.chainingAllowed: true")
	case s.ChainFanout < 0:
		return invalid("settings.chainFanout must be positive, not %d", s.ChainFanout)
	case s.HeartbeatInterval < 0:
		return invalid("settings.heartbeatIntervalMillis must be positive, not %d", s.HeartbeatInterval.Milliseconds())
	case s.ElectionTimeout < 0:
		return invalid("settings.electionTimeoutMillis must be positive, not %d", s.ElectionTimeout.Milliseconds())
	case s.HeartbeatInterval > 0 && s.ElectionTimeout > 0 && s.ElectionTimeout < s.HeartbeatInterval:
		return invalid("settings.electionTimeoutMillis (%d) must be at least settings.heartbeatIntervalMillis (%d)",
			s.ElectionTimeout/time.Millisecond, s.HeartbeatInterval/time.Millisecond)
	}
	return nil
}

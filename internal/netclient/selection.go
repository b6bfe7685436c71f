package netclient

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Server selection for reads, as the drivers' Server Selection and Max
// Staleness specifications define it and mongos applies it to a shard's
// members. The functions here are pure: they take the members as the
// monitors last saw them and decide; ReplicaSet.Select feeds them.
//
// Invariants:
//   - Only the primary and secondaries are candidates; arbiters, hidden
//     members and members whose last check failed never are.
//   - The primary is never filtered by staleness; with mode
//     primaryPreferred it is chosen whenever there is one, ignoring tags
//     and maxStalenessSeconds.
//   - Filters apply in the specification's order: staleness, tag sets
//     (the first set that matches some candidate wins), latency window.

// Read preference modes.
const (
	ModePrimary            = "primary"
	ModePrimaryPreferred   = "primaryPreferred"
	ModeSecondary          = "secondary"
	ModeSecondaryPreferred = "secondaryPreferred"
	ModeNearest            = "nearest"
)

// LocalThreshold is the latency window: members within this much of the
// fastest eligible member's round trip (localThresholdMS, mongos's 15 ms).
const LocalThreshold = 15 * time.Millisecond

// ReadPref is a parsed read preference.
type ReadPref struct {
	Mode string // one of the Mode constants; "" means primary
	// TagSets are tried in order; nil or a set {} matches every member.
	TagSets []bson.D
	// MaxStaleness is maxStalenessSeconds; 0 means no limit.
	MaxStaleness time.Duration
}

// Candidate is one selectable member as its monitor last saw it.
type Candidate struct {
	Host       string
	Primary    bool // else a secondary
	Tags       map[string]string
	LastWrite  time.Time     // hello's lastWrite.lastWriteDate
	LastUpdate time.Time     // when that hello was read
	RTT        time.Duration // average round trip (EWMA)
}

// Eligible returns the members p may select from (one of them is picked at
// random); heartbeat is the monitors' check interval (heartbeatFrequencyMS,
// a term of the staleness estimate). Empty when none suits p.
func Eligible(members []Candidate, p ReadPref, heartbeat time.Duration) []Candidate {
	prim, secs := split(members)
	switch p.Mode {
	case "", ModePrimary:
		return prim
	case ModePrimaryPreferred:
		if len(prim) > 0 {
			return prim
		}
		return filter(secs, members, p, heartbeat)
	case ModeSecondary:
		return filter(secs, members, p, heartbeat)
	case ModeSecondaryPreferred:
		if out := filter(secs, members, p, heartbeat); len(out) > 0 {
			return out
		}
		return prim
	case ModeNearest:
		return filter(members, members, p, heartbeat)
	}
	return nil
}

// Pick returns a random member of Eligible, "" when there is none.
func Pick(members []Candidate, p ReadPref, heartbeat time.Duration) string {
	out := Eligible(members, p, heartbeat)
	if len(out) == 0 {
		return ""
	}
	return out[rand.IntN(len(out))].Host
}

func split(members []Candidate) (prim, secs []Candidate) {
	for _, m := range members {
		if m.Primary {
			prim = append(prim, m)
		} else {
			secs = append(secs, m)
		}
	}
	return prim, secs
}

// filter applies staleness, tag sets and the latency window to cands;
// all is every member (the staleness reference is the primary, or the
// freshest secondary).
func filter(cands, all []Candidate, p ReadPref, heartbeat time.Duration) []Candidate {
	if p.MaxStaleness > 0 {
		cands = fresh(cands, all, p.MaxStaleness, heartbeat)
	}
	return window(matchTags(cands, p.TagSets))
}

// fresh keeps the primary and the secondaries whose estimated staleness
// is at most max: with a primary P, (S.lastUpdate - S.lastWrite) -
// (P.lastUpdate - P.lastWrite) + heartbeat; without one, the freshest
// secondary's lastWrite - S.lastWrite + heartbeat.
func fresh(cands, all []Candidate, max, heartbeat time.Duration) []Candidate {
	prim, secs := split(all)
	stale := func(s Candidate) time.Duration {
		if len(prim) > 0 {
			p := prim[0]
			return s.LastUpdate.Sub(s.LastWrite) - p.LastUpdate.Sub(p.LastWrite) + heartbeat
		}
		newest := s.LastWrite
		for _, o := range secs {
			if o.LastWrite.After(newest) {
				newest = o.LastWrite
			}
		}
		return newest.Sub(s.LastWrite) + heartbeat
	}
	var out []Candidate
	for _, c := range cands {
		if c.Primary || stale(c) <= max {
			out = append(out, c)
		}
	}
	return out
}

// matchTags keeps the candidates matching the first tag set that matches
// any; none when no set does.
func matchTags(cands []Candidate, sets []bson.D) []Candidate {
	if len(sets) == 0 {
		return cands
	}
	for _, set := range sets {
		var out []Candidate
		for _, c := range cands {
			if tagsMatch(c.Tags, set) {
				out = append(out, c)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// tagsMatch: every pair of set is among tags (a non-string value never
// matches: a config's tags are strings).
func tagsMatch(tags map[string]string, set bson.D) bool {
	for _, e := range set {
		s, ok := e.Value.(string)
		if v, has := tags[e.Key]; !ok || !has || v != s {
			return false
		}
	}
	return true
}

// window keeps the candidates within LocalThreshold of the fastest.
func window(cands []Candidate) []Candidate {
	if len(cands) < 2 {
		return cands
	}
	fastest := cands[0].RTT
	for _, c := range cands[1:] {
		fastest = min(fastest, c.RTT)
	}
	out := cands[:0:0]
	for _, c := range cands {
		if c.RTT <= fastest+LocalThreshold {
			out = append(out, c)
		}
	}
	return out
}

// String renders p as mongos shows a read preference in its errors:
// { mode: "secondary", tags: [ { dc: "east" } ], maxStalenessSeconds: 120 }.
func (p ReadPref) String() string {
	mode := p.Mode
	if mode == "" {
		mode = ModePrimary
	}
	var b strings.Builder
	fmt.Fprintf(&b, "{ mode: %q", mode)
	if len(p.TagSets) > 0 && !(len(p.TagSets) == 1 && len(p.TagSets[0]) == 0) {
		b.WriteString(", tags: [ ")
		for i, set := range p.TagSets {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(tagSetString(set))
		}
		b.WriteString(" ]")
	}
	if p.MaxStaleness > 0 {
		fmt.Fprintf(&b, ", maxStalenessSeconds: %d", int64(p.MaxStaleness/time.Second))
	}
	b.WriteString(" }")
	return b.String()
}

func tagSetString(set bson.D) string {
	if len(set) == 0 {
		return "{}"
	}
	parts := make([]string, len(set))
	for i, e := range set {
		if s, ok := e.Value.(string); ok {
			parts[i] = fmt.Sprintf("%s: %q", e.Key, s)
		} else {
			parts[i] = fmt.Sprintf("%s: %v", e.Key, e.Value)
		}
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

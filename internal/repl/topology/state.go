package topology

import "fmt"

// MemberState is a replica-set member state with MongoDB's numeric codes
// (replSetGetStatus "state") and names ("stateStr").
type MemberState int

// Member states, numbered as MongoDB numbers them.
const (
	StateStartup    MemberState = 0
	StatePrimary    MemberState = 1
	StateSecondary  MemberState = 2
	StateRecovering MemberState = 3
	StateStartup2   MemberState = 5
	StateUnknown    MemberState = 6
	StateArbiter    MemberState = 7
	StateDown       MemberState = 8
	StateRollback   MemberState = 9
	StateRemoved    MemberState = 10
)

var stateNames = map[MemberState]string{
	StateStartup: "STARTUP", StatePrimary: "PRIMARY", StateSecondary: "SECONDARY",
	StateRecovering: "RECOVERING", StateStartup2: "STARTUP2", StateUnknown: "UNKNOWN",
	StateArbiter: "ARBITER", StateDown: "DOWN", StateRollback: "ROLLBACK",
	StateRemoved: "REMOVED",
}

// String returns MongoDB's stateStr for s.
func (s MemberState) String() string {
	if n, ok := stateNames[s]; ok {
		return n
	}
	return fmt.Sprintf("STATE(%d)", int(s))
}

// ParseMemberState returns the state named name (as String prints it).
func ParseMemberState(name string) (MemberState, bool) {
	for s, n := range stateNames {
		if n == name {
			return s, true
		}
	}
	return 0, false
}

// Readable reports whether a member in state s serves reads and can be a
// sync source: PRIMARY or SECONDARY.
func (s MemberState) Readable() bool { return s == StatePrimary || s == StateSecondary }

package topology

import (
	"fmt"
	"strings"
	"time"
)

// Action is something the I/O coordinator must do, in the order returned.
type Action interface {
	fmt.Stringer
	action()
}

// SendHeartbeats: send replSetHeartbeat to the members with these _ids and
// report each answer with HeartbeatResponse or HeartbeatFailed.
type SendHeartbeats struct{ Targets []int }

// SendVoteRequests: send replSetRequestVotes for Term to Targets and report
// the answers with VoteResponse.
type SendVoteRequests struct {
	DryRun      bool
	Term        int64
	Candidate   int
	LastApplied OpTime
	Targets     []int
}

// PersistVote: store the vote durably (local.replset.election) before
// sending anything that follows it, in particular the vote response.
type PersistVote struct {
	Term      int64
	Candidate int
}

// ElectionWon: this member won Term and entered catch-up; it is PRIMARY
// but not yet writable. Until BecomePrimary it keeps applying oplog entries.
type ElectionWon struct{ Term int64 }

// BecomePrimary: catch-up is over; drain the applier, write the no-op that
// starts Term, report it with LocalWrite, then accept writes.
type BecomePrimary struct{ Term int64 }

// StepDown: stop accepting writes at once, kill user operations that
// conflict with the new state, and become SECONDARY.
type StepDown struct{ Reason string }

// StepDownFailed: a pending replSetStepDown found no caught-up electable
// secondary in time; answer it with Err.
type StepDownFailed struct{ Err error }

// ChangeSyncSource: stop fetching from the current source and fetch from
// Host (member ID); ID -1 and Host "" mean no sync source.
type ChangeSyncSource struct {
	ID   int
	Host string
}

// CommitPointAdvanced: the majority commit point moved; wake write-concern
// waiters and readConcern majority readers.
type CommitPointAdvanced struct{ OpTime OpTime }

// StateChanged: this member's state changed (for hello's topologyVersion).
type StateChanged struct{ From, To MemberState }

func (SendHeartbeats) action()      {}
func (SendVoteRequests) action()    {}
func (PersistVote) action()         {}
func (ElectionWon) action()         {}
func (BecomePrimary) action()       {}
func (StepDown) action()            {}
func (StepDownFailed) action()      {}
func (ChangeSyncSource) action()    {}
func (CommitPointAdvanced) action() {}
func (StateChanged) action()        {}

func (a SendHeartbeats) String() string { return "send-heartbeats " + ids(a.Targets) }
func (a SendVoteRequests) String() string {
	kind := "vote-requests"
	if a.DryRun {
		kind = "dry-run-vote-requests"
	}
	return fmt.Sprintf("send-%s term=%d applied=%s to=%s", kind, a.Term, a.LastApplied, ids(a.Targets))
}
func (a PersistVote) String() string {
	return fmt.Sprintf("persist-vote term=%d candidate=%d", a.Term, a.Candidate)
}
func (a ElectionWon) String() string   { return fmt.Sprintf("election-won term=%d", a.Term) }
func (a BecomePrimary) String() string { return fmt.Sprintf("become-primary term=%d", a.Term) }
func (a StepDown) String() string      { return "step-down: " + a.Reason }
func (a StepDownFailed) String() string {
	return "step-down-failed: " + a.Err.Error()
}
func (a ChangeSyncSource) String() string {
	if a.ID < 0 {
		return "sync-source none"
	}
	return fmt.Sprintf("sync-source %d", a.ID)
}
func (a CommitPointAdvanced) String() string { return "commit-point " + a.OpTime.String() }
func (a StateChanged) String() string        { return fmt.Sprintf("state %s -> %s", a.From, a.To) }

func ids(v []int) string {
	s := make([]string, len(v))
	for i, id := range v {
		s[i] = fmt.Sprint(id)
	}
	return "[" + strings.Join(s, ",") + "]"
}

// VoteRequest is replSetRequestVotes as a voter receives it.
type VoteRequest struct {
	Candidate     int
	Term          int64
	DryRun        bool
	ConfigVersion int64
	ConfigTerm    int64
	LastApplied   OpTime
}

// VoteReply is the voter's answer.
type VoteReply struct {
	Term    int64
	Granted bool
	Reason  string
}

// HeartbeatReply is what a replSetHeartbeat answer tells about its sender.
type HeartbeatReply struct {
	From          int
	RTT           time.Duration
	State         MemberState
	Term          int64
	ConfigVersion int64
	ConfigTerm    int64
	Applied       OpTime
	Durable       OpTime
	Written       OpTime
	CommitPoint   OpTime
	SyncSource    int // member _id, -1 for none
	ElectionTime  OpTime
	// DirectReaders is a primary's direct-reader list in chainingMode
	// "auto" (autodirect.go); nil when it publishes none.
	DirectReaders []int
}

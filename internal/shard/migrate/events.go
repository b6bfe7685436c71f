package migrate

import "time"

// EventKind names what happened.
type EventKind int

const (
	Persisted          EventKind = iota // the last Persist* action is durable (majority)
	RecipientStatus                     // the recipient reports its clone and catch-up
	RecipientFailed                     // the recipient answered an error (Err)
	SectionEntered                      // the donor holds the range's critical section
	RecipientCommitted                  // the recipient applied the last mods
	ConfigCommitted                     // the config servers committed the placement
	ConfigRefused                       // the config servers refused it (Err): nothing changed
	ConfigUnknown                       // the commit's answer was lost (network, failover)
	Fenced                              // FenceCommit is done
	Placement                           // the config servers' owner of the range (Owner)
	SteppedDown                         // the donor is no longer primary
)

// Event is one input to Step.
type Event struct {
	Kind         EventKind
	Cloned       bool   // RecipientStatus: the snapshot clone is done
	PendingBytes int64  // RecipientStatus: oplog mods not yet applied
	Owner        string // Placement: "donor", "recipient" or "" (unreadable)
	Err          string
}

// ActionKind names what the I/O side must do.
type ActionKind int

const (
	PersistCoordinator     ActionKind = iota // write the coordinator document (majority)
	StartRecipient                           // _recvChunkStart: clone, then catch up
	PollRecipient                            // _recvChunkStatus after After
	EnterCriticalSection                     // block writes to the range on the donor
	RecipientCommitStart                     // _recvChunkCommit: apply the last mods
	CommitOnConfig                           // commit the placement (majority)
	FenceCommit                              // bump the collection version past the commit's (majority), after After
	ReadPlacement                            // read the range's owner (majority), after After
	PersistDecision                          // write Decision into the coordinator document
	ReleaseCriticalSection                   // let the writes go (they refresh and retarget)
	DeleteDonorRange                         // schedule the donor's copy for deletion
	DeleteRecipientRange                     // the recipient deletes what it cloned
	Finish                                   // the migration is over with Decision (Reason)
)

var actionNames = [...]string{"persist-coordinator", "start-recipient", "poll-recipient", "enter-critical-section",
	"recipient-commit-start", "commit-on-config", "fence-commit", "read-placement", "persist-decision", "release-critical-section",
	"delete-donor-range", "delete-recipient-range", "finish"}

func (k ActionKind) String() string { return actionNames[k] }

// Action is one output of Step.
type Action struct {
	Kind     ActionKind
	After    time.Duration
	Decision Decision
	Reason   string
}

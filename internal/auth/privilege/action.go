package privilege

// Action is a set of MongoDB privilege actions (a bit each).
type Action uint64

// The actions relaydb's commands check. TODO(#14): the rest of MongoDB's
// actions (validate, top, ...) as commands need them.
const (
	Find Action = 1 << iota
	Insert
	Update
	Remove
	CreateIndex
	DropIndex
	CreateCollection
	DropCollection
	DropDatabase
	RenameCollection
	CollMod
	ListCollections
	ListIndexes
	ListDatabases
	CollStats
	DBStats
	KillCursors
	CreateUser
	DropUser
	ViewUser
	GrantRole
	RevokeRole
	ChangePassword
	ServerStatus
	HostInfo
	GetCmdLineOpts
	GetLog
	GetParameter
	SetParameter
	ReplSetGetStatus
	ReplSetGetConfig
	ReplSetConfigure
	ReplSetStateChange
	Shutdown
	KillAnySession
	CleanupOrphaned
	// The sharding actions a router checks (MongoDB's names).
	AddShard
	RemoveShard
	EnableSharding
	MoveChunk
	SplitChunk
	ListShards
	FlushRouterConfig
	GetShardVersion
	ConnPoolStats
	CheckMetadataConsistency
	// User-defined roles and a user's changes to itself.
	CreateRole
	DropRole
	ViewRole
	ChangeCustomData
	ChangeOwnPassword
	ChangeOwnCustomData
	// relaydb's IP allowlist commands (setIPAllowlist, getIPAllowlist).
	SetIPAllowlist
	GetIPAllowlist
	// KillAnyCursor kills another user's cursor (killCursors under auth).
	KillAnyCursor
	// SetAuthenticationRestriction sets a user's authenticationRestrictions.
	SetAuthenticationRestriction
	// Inprog lists the running operations (currentOp, $currentOp).
	Inprog
	// ChangeStream opens a $changeStream (with find on the same resource).
	ChangeStream
	// Killop kills another user's operation (killOp).
	Killop
	// Internal is member-to-member and migration traffic (__system only).
	Internal
)

// Has reports whether a holds every action of b.
func (a Action) Has(b Action) bool { return a&b == b }

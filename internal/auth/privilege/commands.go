package privilege

import "go.mongodb.org/mongo-driver/v2/bson"

// needsFunc returns the privileges a request to a command needs.
type needsFunc func(db string, cmd bson.D) []Need

// Needs returns the privileges the command name (its canonical name) needs
// for cmd on db; ok is false for a command with no entry (refuse it).
func Needs(name, db string, cmd bson.D) (needs []Need, ok bool) {
	f, ok := commands[name]
	if !ok {
		return nil, false
	}
	return f(db, cmd), true
}

// Known reports whether name has an entry (TestEveryCommandHasPrivileges).
func Known(name string) bool { _, ok := commands[name]; return ok }

// commands maps each command to its privileges, as MongoDB's checks do.
var commands = map[string]needsFunc{}

func init() {
	for _, n := range []string{"buildInfo", "connectionStatus", "endSessions", "hello", "listCommands", "logout",
		"ping", "refreshSessions", "saslContinue", "saslStart", "startSession", "whatsmyuri", "killSessions",
		"abortTransaction", "commitTransaction",
		"killOp"} { // killOp: a user may kill its own operations; others need killop (checked by the command)
		commands[n] = none
	}
	for n, a := range map[string]Action{"find": Find, "count": Find, "distinct": Find, "insert": Insert,
		"update": Update, "delete": Remove, "create": CreateCollection, "createIndexes": CreateIndex,
		"dropIndexes": DropIndex, "drop": DropCollection, "collMod": CollMod, "collStats": CollStats,
		"listIndexes": ListIndexes, "killCursors": KillCursors, "autoSplitVector": Find} {
		commands[n] = onColl(a)
	}
	for n, a := range map[string]Action{"dbStats": DBStats, "dropDatabase": DropDatabase, "listCollections": ListCollections,
		"createUser": CreateUser, "dropUser": DropUser, "usersInfo": ViewUser,
		"grantRolesToUser": GrantRole, "revokeRolesFromUser": RevokeRole} {
		commands[n] = onDB(a)
	}
	for n, a := range map[string]Action{"listDatabases": ListDatabases, "serverStatus": ServerStatus, "hostInfo": HostInfo,
		"getCmdLineOpts": GetCmdLineOpts, "getLog": GetLog, "getFreeMonitoringStatus": ServerStatus, "getParameter": GetParameter, "setParameter": SetParameter,
		"getIPAllowlist": GetIPAllowlist, "setIPAllowlist": SetIPAllowlist,
		"shutdown": Shutdown, "replSetGetStatus": ReplSetGetStatus, "replSetGetConfig": ReplSetGetConfig,
		"replSetInitiate": ReplSetConfigure, "replSetReconfig": ReplSetConfigure, "replSetFreeze": ReplSetStateChange,
		"replSetMaintenance": ReplSetStateChange, "replSetStepDown": ReplSetStateChange, "replSetSyncFrom": ReplSetStateChange,
		"killAllSessions": KillAnySession, "killAllSessionsByPattern": KillAnySession, "cleanupOrphaned": CleanupOrphaned,
		"configureFailPoint": Internal, "replSetHeartbeat": Internal, "replSetRequestVotes": Internal,
		"replSetUpdatePosition": Internal} {
		commands[n] = onCluster(a)
	}
	for _, n := range []string{"_configsvrBalancerCollectionStatus", "_configsvrBalancerStatus", "_configsvrCommitChunkMigration",
		"_configsvrEnsureChunkVersionIsGreaterThan", "_getUserCacheGeneration", "_migrateClone", "_recvChunkAbort", "_recvChunkCommit", "_recvChunkStart",
		"_recvChunkStatus", "_shardsvrCriticalSection", "_shardsvrGetStatsForBalancing", "_shardsvrMovePrimaryEnterCriticalSection",
		"_shardsvrMovePrimaryExitCriticalSection", "_shardsvrMoveRange", "_shardsvrNotifyShardingEvent", "_shardsvrScheduleRangeDeletion", "_transferMods"} {
		commands[n] = onCluster(Internal)
	}
	// TODO(#14): MongoDB's validate and enableProfiler actions; collMod
	// (which dbAdmin, dbOwner and root hold, as those two) stands in.
	commands["validate"] = onColl(CollMod)
	commands["profile"] = onDB(CollMod)
	commands["findAndModify"] = findAndModify
	commands["updateUser"] = updateUser
	commands["aggregate"] = aggregate
	commands["getMore"] = getMore
	commands["renameCollection"] = renameCollection
	commands["explain"] = explain
	commands["currentOp"] = currentOp
	userCommands() // commands_roles.go
}

func none(string, bson.D) []Need { return nil }

func onColl(a Action) needsFunc {
	return func(db string, cmd bson.D) []Need { return []Need{{DB: db, Coll: str(cmd[0].Value), Actions: a}} }
}

func onDB(a Action) needsFunc {
	return func(db string, _ bson.D) []Need { return []Need{{DB: db, Actions: a}} }
}

func onCluster(a Action) needsFunc {
	return func(string, bson.D) []Need { return []Need{{Cluster: true, Actions: a}} }
}

func str(v any) string { s, _ := v.(string); return s }

func field(cmd bson.D, key string) any {
	for _, e := range cmd {
		if e.Key == key {
			return e.Value
		}
	}
	return nil
}

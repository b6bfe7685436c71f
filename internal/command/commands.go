package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
)

// commands is the command table, sorted by name: each command's typed
// definition (its request struct and handler), help text and flags. Roles
// come from the struct's tag; a command whose roles name no secondary
// needs a writable primary (Write). A command's struct lives in package
// request and its handler here, in files of the same name: find.go,
// find_and_modify.go, ..., or its family's (replset.go, sessions.go,
// info.go).
//
// Read by hand rather than through a struct's fields, on purpose: the
// replSet* commands' arguments (the coordinator parses the
// request it is given: config documents, heartbeat, vote and position
// fields, stepDown's secs/force); configureFailPoint's mode and data
// documents; create's options (kept as sent for the catalog); the
// parameter names of getParameter/setParameter (dynamic by nature); the
// command explain wraps (only find's is decoded by its struct: the
// others give explain only their filter, and a router sends each to its
// shards as it is, router/explain.go); and the
// generic arguments writeConcern, readConcern, lsid/txnNumber/stmtIds
// (writeconcern.go, readconcern_parse.go, retry.go). Fields typed any are
// accepted as sent because relaydb reads them leniently or not at all.
var commands = []*Command{
	{Name: "_configsvrBalancerCollectionStatus", AdminOnly: true, Help: "whether the balancer would move a collection's ranges now, on the config server primary", Def: typed(configsvrBalancerCollectionStatus)},
	{Name: "_configsvrBalancerStatus", AdminOnly: true, Help: "the balancer's mode and rounds, on the config server primary", Def: typed(configsvrBalancerStatus)},
	{Name: "_configsvrCommitChunkMigration", AdminOnly: true, Help: "a config server's commit of a chunk migration into config.chunks", Def: typed(configsvrCommitChunkMigration)},
	{Name: "_configsvrEnsureChunkVersionIsGreaterThan", AdminOnly: true, Help: "a config server's fence of a migration commit: bumps a chunk's version", Def: typed(configsvrEnsureChunkVersionIsGreaterThan)},
	{Name: "_getUserCacheGeneration", AdminOnly: true, Help: "internal: a config server's user cache generation, which routers poll", Def: typed(getUserCacheGeneration)},
	{Name: "_migrateClone", AdminOnly: true, Help: "a migration's recipient pulls the next batch of the range from the donor", Def: typed(migrateClone)},
	{Name: "_recvChunkAbort", AdminOnly: true, AfterWrite: always, Help: "a migration's recipient stops and deletes its clone", Def: typed(recvChunkAbort)},
	{Name: "_recvChunkCommit", AdminOnly: true, AfterWrite: always, Help: "a migration's recipient applies the last changes", Def: typed(recvChunkCommit)},
	{Name: "_recvChunkStart", AdminOnly: true, AfterWrite: always, Help: "a migration's recipient starts cloning a range", Def: typed(recvChunkStart)},
	{Name: "_recvChunkStatus", AdminOnly: true, Help: "a migration's recipient reports its clone", Def: typed(recvChunkStatus)},
	{Name: "_shardsvrCriticalSection", AdminOnly: true, Help: "a router's DDL: holds or releases a namespace's critical section on a shard", Def: typed(shardsvrCriticalSection)},
	{Name: "_shardsvrGetStatsForBalancing", AdminOnly: true, Help: "a shard's data size and load per collection, for the balancer", Def: typed(shardsvrGetStatsForBalancing)},
	{Name: "_shardsvrMovePrimaryEnterCriticalSection", AdminOnly: true, Help: "movePrimary: holds the database's critical section on its old primary shard", Def: typed(shardsvrMovePrimaryEnterCriticalSection)},
	{Name: "_shardsvrMovePrimaryExitCriticalSection", AdminOnly: true, Help: "movePrimary: releases the database's critical section", Def: typed(shardsvrMovePrimaryExitCriticalSection)},
	{Name: "_shardsvrMoveRange", AdminOnly: true, AfterWrite: always, Help: "moves a chunk from this shard to another (chunk migration)", Def: typed(shardsvrMoveRange)},
	{Name: "_shardsvrNotifyShardingEvent", AdminOnly: true, AfterWrite: always, Help: "a router's DDL: notes a sharding event (shardCollection) in the primary shard's oplog for change streams", Def: typed(shardsvrNotifyShardingEvent)},
	{Name: "_shardsvrScheduleRangeDeletion", AdminOnly: true, AfterWrite: always, Help: "internal: persists a range deletion task on a shard", Def: typed(shardsvrScheduleRangeDeletion)},
	{Name: "_transferMods", AdminOnly: true, Help: "a migration's recipient pulls the changes to the range since its last call", Def: typed(transferMods)},
	{Name: "abortTransaction", AdminOnly: true, Help: "aborts a multi-document transaction", Def: typed(abortTransaction)},
	{Name: "aggregate", Read: true, AfterWrite: pipelineWrites, Help: "runs an aggregation pipeline", Def: typed(aggregate)},
	{Name: "authenticate", Help: "MONGODB-X509 login on $external with the client's TLS certificate", Def: typed(authenticate)},
	{Name: "autoSplitVector", Read: true, Help: "keys cutting a shard key range into pieces of a given size", Def: typed(autoSplitVector)},
	{Name: "buildInfo", Aliases: []string{"buildinfo"}, Help: "version and build facts", Def: typed(buildInfo)},
	{Name: "cleanupOrphaned", AdminOnly: true, Help: "waits until a namespace has no range deletion task left on this shard", Def: typed(cleanupOrphaned)},
	{Name: "cloneCollectionAsCapped", AfterWrite: always, Help: "copies a collection into a new capped collection", Def: typed(cloneCollectionAsCapped)},
	{Name: "collMod", AfterWrite: always, Help: "modifies collection options (validation, capped limits, a view's definition)", Def: typed(collMod)},
	{Name: "collStats", Aliases: []string{"collstats"}, Read: true, Help: "a collection's size and index facts", Def: typed(collStats)},
	{Name: "commitTransaction", AdminOnly: true, AfterWrite: always, Help: "commits a multi-document transaction", Def: typed(commitTransaction)},
	{Name: "configureFailPoint", AdminOnly: true, Help: "test command: configures the failCommand fail point", Def: typed(configureFailPoint)},
	{Name: "connectionStatus", Help: "authentication state of this connection", Def: typed(connectionStatus)},
	{Name: "convertToCapped", AfterWrite: always, Help: "makes a collection capped (a capped copy renamed over it)", Def: typed(convertToCapped)},
	{Name: "count", Read: true, Help: "counts documents", Def: typed(count)},
	{Name: "create", AfterWrite: always, Help: "creates a collection", Def: typed(create)},
	{Name: "createIndexes", AfterWrite: always, Help: "builds indexes", Def: typed(createIndexes)},
	{Name: "createRole", AfterWrite: always, Help: "creates a user-defined role in admin.system.roles", Def: typed(createRole)},
	{Name: "createUser", AfterWrite: always, Help: "creates a user with SCRAM credentials in admin.system.users", Def: typed(createUser)},
	{Name: "currentOp", AdminOnly: true, Help: "the operations running in this process", Def: typed(currentOp)},
	{Name: "dbStats", Aliases: []string{"dbstats"}, Read: true, Help: "a database's size facts", Def: typed(dbStats)},
	{Name: "delete", Help: "deletes documents", Def: typed(deleteCmd)},
	{Name: "distinct", Read: true, Help: "distinct values of a field", Def: typed(distinct)},
	{Name: "drop", AfterWrite: always, Help: "drops a collection", Def: typed(drop)},
	{Name: "dropAllRolesFromDatabase", AfterWrite: always, Help: "removes every user-defined role of the database", Def: typed(dropAllRolesFromDatabase)},
	{Name: "dropAllUsersFromDatabase", AfterWrite: always, Help: "removes every user of the database", Def: typed(dropAllUsersFromDatabase)},
	{Name: "dropDatabase", AfterWrite: always, Help: "drops the current database", Def: typed(dropDatabase)},
	{Name: "dropIndexes", Aliases: []string{"deleteIndexes"}, AfterWrite: always, Help: "drops indexes", Def: typed(dropIndexes)},
	{Name: "dropRole", AfterWrite: always, Help: "removes a user-defined role from every user and role, then itself", Def: typed(dropRole)},
	{Name: "dropUser", AfterWrite: always, Help: "removes a user", Def: typed(dropUser)},
	{Name: "endSessions", Help: "ends logical sessions", Def: typed(endSessions)},
	{Name: "explain", Help: "describes the plan of find, count, distinct, update, delete, findAndModify or aggregate", Def: typed(explain)},
	{Name: "find", Read: true, Help: "queries a collection", Def: typed(find)},
	{Name: "findAndModify", Aliases: []string{"findandmodify"}, Help: "updates or removes one document and returns it", Def: typed(findAndModify)},
	{Name: "fsync", AdminOnly: true, Help: "makes every write durable; lock: true holds writes until fsyncUnlock", Def: typed(fsync)},
	{Name: "fsyncUnlock", AdminOnly: true, Help: "releases one fsync lock", Def: typed(fsyncUnlock)},
	{Name: "getCmdLineOpts", AdminOnly: true, Help: "the process's command line", Def: typed(getCmdLineOpts)},
	{Name: "getFreeMonitoringStatus", AdminOnly: true, Help: "always disabled", Def: typed(getFreeMonitoringStatus)},
	{Name: "getIPAllowlist", AdminOnly: true, Help: "the IP allowlist in force, where it came from and the connections it refused", Def: typed(getIPAllowlist)},
	{Name: "getLog", AdminOnly: true, Help: "recent log lines (startupWarnings only)", Def: typed(getLog)},
	{Name: "getMore", Help: "returns the next batch of a cursor", Def: typed(getMore)},
	{Name: "getParameter", AdminOnly: true, Help: "reads server parameters", Def: typed(getParameter)},
	{Name: "grantPrivilegesToRole", AfterWrite: always, Help: "adds privileges to a user-defined role", Def: typed(grantPrivilegesToRole)},
	{Name: "grantRolesToRole", AfterWrite: always, Help: "adds inherited roles to a user-defined role", Def: typed(grantRolesToRole)},
	{Name: "grantRolesToUser", AfterWrite: always, Help: "adds roles to a user", Def: typed(grantRolesToUser)},
	{Name: "hello", Aliases: []string{"isMaster", "ismaster"}, Help: "describes this member's role to drivers (SDAM)", Def: typed(hello)},
	{Name: "hostInfo", Help: "facts about the host", Def: typed(hostInfo)},
	{Name: "insert", Help: "inserts documents", Def: typed(insert)},
	{Name: "killAllSessions", Help: "kills all sessions (accepted)", Def: typed(accepted[request.KillAllSessions])},
	{Name: "killAllSessionsByPattern", Help: "kills sessions (accepted)", Def: typed(accepted[request.KillAllSessionsByPattern])},
	{Name: "killCursors", Help: "closes cursors", Def: typed(killCursors)},
	{Name: "killOp", AdminOnly: true, Help: "interrupts a running operation (an opid from currentOp)", Def: typed(killOp)},
	{Name: "killSessions", Help: "kills logical sessions (accepted)", Def: typed(accepted[request.KillSessions])},
	{Name: "listCollections", Read: true, Help: "lists the collections of a database", Def: typed(listCollections)},
	{Name: "listCommands", Help: "lists every command", Def: typed(listCommands)},
	{Name: "listDatabases", AdminOnly: true, Help: "lists databases", Def: typed(listDatabases)},
	{Name: "listIndexes", Read: true, Help: "lists a collection's indexes", Def: typed(listIndexes)},
	{Name: "logout", Help: "forgets the users authenticated on this connection's database", Def: typed(logout)},
	{Name: "mapReduce", Aliases: []string{"mapreduce"}, Read: true, AfterWrite: mapReduceWrites, Help: "deprecated: runs map, reduce and finalize JavaScript functions (as an aggregation)", Def: typed(mapReduceCmd)},
	{Name: "ping", Help: "answers ok", Def: typed(ping)},
	{Name: "profile", Help: "the database profiler's settings (level 0 only: relaydb has no profiler yet)", Def: typed(profile)},
	{Name: "refreshSessions", Help: "refreshes logical sessions (accepted)", Def: typed(accepted[request.RefreshSessions])},
	{Name: "renameCollection", AdminOnly: true, AfterWrite: always, Help: "renames a collection", Def: typed(renameCollection)},
	{Name: "replSetFreeze", AdminOnly: true, Help: "keeps this member from standing for election", Def: typed(replSetFreeze)},
	{Name: "replSetGetConfig", AdminOnly: true, Help: "returns the replica-set config", Def: typed(replSetGetConfig)},
	{Name: "replSetGetStatus", AdminOnly: true, Help: "reports the replica set's members and optimes", Def: typed(replSetGetStatus)},
	{Name: "replSetHeartbeat", AdminOnly: true, Help: "internal: member-to-member heartbeat", Def: typed(replSetHeartbeat)},
	{Name: "replSetInitiate", AdminOnly: true, Help: "initiates a replica set (default: this host alone)", Def: typed(replSetInitiate)},
	{Name: "replSetMaintenance", AdminOnly: true, Help: "enters or leaves maintenance mode (RECOVERING)", Def: typed(replSetMaintenance)},
	{Name: "replSetReconfig", AdminOnly: true, Help: "installs a new replica-set config", Def: typed(replSetReconfig)},
	{Name: "replSetRequestVotes", AdminOnly: true, Help: "internal: election vote request", Def: typed(replSetRequestVotes)},
	{Name: "replSetStepDown", AdminOnly: true, Help: "makes the primary step down", Def: typed(replSetStepDown)},
	{Name: "replSetSyncFrom", AdminOnly: true, Help: "overrides the sync source", Def: typed(replSetSyncFrom)},
	{Name: "replSetUpdatePosition", AdminOnly: true, Help: "internal: replication progress of downstream members", Def: typed(replSetUpdatePosition)},
	{Name: "revokePrivilegesFromRole", AfterWrite: always, Help: "removes privileges from a user-defined role", Def: typed(revokePrivilegesFromRole)},
	{Name: "revokeRolesFromRole", AfterWrite: always, Help: "removes inherited roles from a user-defined role", Def: typed(revokeRolesFromRole)},
	{Name: "revokeRolesFromUser", AfterWrite: always, Help: "removes roles from a user", Def: typed(revokeRolesFromUser)},
	{Name: "rolesInfo", Read: true, Help: "describes roles, with their privileges on request", Def: typed(rolesInfo)},
	{Name: "saslContinue", Help: "continues a SASL (SCRAM) authentication conversation", Def: typed(saslContinue)},
	{Name: "saslStart", Help: "starts a SASL (SCRAM) authentication conversation", Def: typed(saslStart)},
	{Name: "serverStatus", Help: "process-wide counters", Def: typed(serverStatus)},
	{Name: "setIPAllowlist", AdminOnly: true, AfterWrite: always, Help: "replaces the IP allowlist of every member (stored in admin.system.version)", Def: typed(setIPAllowlist)},
	{Name: "setParameter", AdminOnly: true, Help: "sets server parameters", Def: typed(setParameter)},
	{Name: "shutdown", AdminOnly: true, Help: "shuts the server down gracefully", Def: typed(shutdown)},
	{Name: "startSession", Help: "starts a logical session", Def: typed(startSession)},
	{Name: "testVersion1", Help: "a Stable API test command in API Version 1", Def: typed(testVersion1)},
	{Name: "testVersion2", Help: "a Stable API test command outside API Version 1", Def: typed(testVersion2)},
	{Name: "update", Help: "updates documents", Def: typed(update)},
	{Name: "updateRole", AfterWrite: always, Help: "replaces a user-defined role's privileges or roles", Def: typed(updateRole)},
	{Name: "updateUser", AfterWrite: always, Help: "changes a user's password or roles", Def: typed(updateUser)},
	{Name: "usersInfo", Read: true, Help: "describes users (credentials only with showCredentials)", Def: typed(usersInfo)},
	{Name: "validate", Help: "checks a collection's documents against its index entries and counters", Def: typed(validate)},
	{Name: "whatsmyuri", Help: "the client's address as the server sees it", Def: typed(whatsMyURI)},
}

// always is AfterWrite for commands that write on every call.
func always(bson.D) bool { return true }

package command

import "go.mongodb.org/mongo-driver/v2/bson"

// commands is the command table, sorted by name: each command's typed
// definition (its request struct and handler), help text and flags. Roles
// come from the struct's tag; a command whose roles name no secondary
// needs a writable primary (Write). Each command's struct and handler live
// in the file named for it (find.go, find_and_modify.go, ...) or for its
// family (replset.go).
//
// TODO(#10): the commands still registered by init functions (legacy in
// registry.go) move here.
var commands = []*Command{
	{Name: "aggregate", Read: true, AfterWrite: pipelineWrites, Help: "runs an aggregation pipeline", Def: typed(aggregate)},
	{Name: "collMod", AfterWrite: always, Help: "modifies collection options (not supported yet)", Def: typed(collMod)},
	{Name: "collStats", Read: true, Help: "a collection's size and index facts", Def: typed(collStats)},
	{Name: "count", Read: true, Help: "counts documents", Def: typed(count)},
	{Name: "create", AfterWrite: always, Help: "creates a collection", Def: typed(create)},
	{Name: "createIndexes", AfterWrite: always, Help: "builds indexes", Def: typed(createIndexes)},
	{Name: "dbStats", Read: true, Help: "a database's size facts", Def: typed(dbStats)},
	{Name: "delete", Help: "deletes documents", Def: typed(deleteCmd)},
	{Name: "distinct", Read: true, Help: "distinct values of a field", Def: typed(distinct)},
	{Name: "drop", AfterWrite: always, Help: "drops a collection", Def: typed(drop)},
	{Name: "dropDatabase", AfterWrite: always, Help: "drops the current database", Def: typed(dropDatabase)},
	{Name: "dropIndexes", Aliases: []string{"deleteIndexes"}, AfterWrite: always, Help: "drops indexes", Def: typed(dropIndexes)},
	{Name: "explain", Help: "describes the plan of find, count, distinct, update, delete, findAndModify or aggregate", Def: typed(explain)},
	{Name: "find", Read: true, Help: "queries a collection", Def: typed(find)},
	{Name: "findAndModify", Aliases: []string{"findandmodify"}, Help: "updates or removes one document and returns it", Def: typed(findAndModify)},
	{Name: "getMore", Help: "returns the next batch of a cursor", Def: typed(getMore)},
	{Name: "insert", Help: "inserts documents", Def: typed(insert)},
	{Name: "killCursors", Help: "closes cursors", Def: typed(killCursors)},
	{Name: "listCollections", Read: true, Help: "lists the collections of a database", Def: typed(listCollections)},
	{Name: "listDatabases", AdminOnly: true, Help: "lists databases", Def: typed(listDatabases)},
	{Name: "listIndexes", Read: true, Help: "lists a collection's indexes", Def: typed(listIndexes)},
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
	{Name: "serverStatus", Help: "process-wide counters", Def: typed(serverStatus)},
	{Name: "update", Help: "updates documents", Def: typed(update)},
}

// always is AfterWrite for commands that write on every call.
func always(bson.D) bool { return true }

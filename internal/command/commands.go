package command

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
	{Name: "count", Read: true, Help: "counts documents", Def: typed(count)},
	{Name: "delete", Help: "deletes documents", Def: typed(deleteCmd)},
	{Name: "distinct", Read: true, Help: "distinct values of a field", Def: typed(distinct)},
	{Name: "explain", Help: "describes the plan of find, count, distinct, update, delete, findAndModify or aggregate", Def: typed(explain)},
	{Name: "find", Read: true, Help: "queries a collection", Def: typed(find)},
	{Name: "findAndModify", Aliases: []string{"findandmodify"}, Help: "updates or removes one document and returns it", Def: typed(findAndModify)},
	{Name: "getMore", Help: "returns the next batch of a cursor", Def: typed(getMore)},
	{Name: "insert", Help: "inserts documents", Def: typed(insert)},
	{Name: "killCursors", Help: "closes cursors", Def: typed(killCursors)},
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
	{Name: "update", Help: "updates documents", Def: typed(update)},
}

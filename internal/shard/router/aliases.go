package router

import "go.mongodb.org/mongo-driver/v2/bson"

// oldNames are the spellings mongos accepts for a command besides its
// name (MongoDB 7.0's Command(name, oldName) pairs) that the router
// renames before anything else looks at the command, so every switch on
// the name (routing, retries, read preference, privileges) and the shards
// see one spelling. hello's isMaster/ismaster and the admin commands with
// a lower-case twin in localCommands (addshard, ...) keep their spelling:
// their handlers answer them themselves.
var oldNames = map[string]string{
	"collstats":         "collStats",
	"dbstats":           "dbStats",
	"deleteIndexes":     "dropIndexes",
	"findandmodify":     "findAndModify",
	"flushrouterconfig": "flushRouterConfig",
	"movechunk":         "moveChunk",
}

// canonicalCmd returns cmd with its first key renamed to the command's
// name when it is an old name (a copy; cmd is not changed).
func canonicalCmd(cmd bson.D) bson.D {
	if len(cmd) == 0 {
		return cmd
	}
	name, ok := oldNames[cmd[0].Key]
	if !ok {
		return cmd
	}
	out := append(bson.D{{Key: name, Value: cmd[0].Value}}, cmd[1:]...)
	return out
}

// listedName reports whether listCommands shows name: mongos leaves out
// every old name except "isMaster".
func listedName(name string) bool {
	if name == "isMaster" {
		return true
	}
	_, old := aliases[name]
	_, renamed := oldNames[name]
	return !old && !renamed
}

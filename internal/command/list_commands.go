package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
)

// listedAliases are the aliases listCommands shows as commands of their
// own, as mongod's does: it leaves out every old name except "isMaster"
// (kept for Ops Manager 4.4), so "ismaster", "buildinfo", "dbstats", ...
// are accepted but not listed.
var listedAliases = map[string]bool{"isMaster": true}

func listCommands(*Ctx, *request.ListCommands) (bson.D, error) {
	cmds := bson.D{}
	for _, cmd := range table {
		cmds = append(cmds, commandEntry(cmd.Name, cmd))
		for _, a := range cmd.Aliases {
			if listedAliases[a] {
				cmds = append(cmds, commandEntry(a, cmd))
			}
		}
	}
	sortByKey(cmds)
	return bson.D{{Key: "commands", Value: cmds}}, nil
}

func commandEntry(name string, cmd *Command) bson.E {
	return bson.E{Key: name, Value: bson.D{{Key: "help", Value: cmd.Help}, {Key: "adminOnly", Value: cmd.AdminOnly}}}
}

// sortByKey sorts d by key (an insertion sort: d is nearly sorted, its
// only misplaced entries are the listed aliases).
func sortByKey(d bson.D) {
	for i := 1; i < len(d); i++ {
		for j := i; j > 0 && d[j].Key < d[j-1].Key; j-- {
			d[j], d[j-1] = d[j-1], d[j]
		}
	}
}

package command

import (
	"slices"
	"strings"
)

// The balancer's commands (issue #12): _shardsvrGetStatsForBalancing and
// autoSplitVector on shards (balancer_stats.go, auto_split_vector.go),
// _configsvrBalancerStatus on config servers (balancer_status.go). They
// join the command table before registry.go's init builds the registry
// (package variables are initialized before any init function), in
// sorted order. TODO(#12): move these entries into commands.go's table
// once its other pending edits are committed.
var _ = addCommands(
	&Command{Name: "_configsvrBalancerStatus", AdminOnly: true, Help: "the balancer's mode and rounds, on the config server primary", Def: typed(configsvrBalancerStatus)},
	&Command{Name: "_shardsvrGetStatsForBalancing", AdminOnly: true, Help: "a shard's data size and load per collection, for the balancer", Def: typed(shardsvrGetStatsForBalancing)},
	&Command{Name: "autoSplitVector", Read: true, Help: "keys cutting a shard key range into pieces of a given size", Def: typed(autoSplitVector)},
)

// addCommands inserts cs into the sorted command table.
func addCommands(cs ...*Command) bool {
	for _, c := range cs {
		i, _ := slices.BinarySearchFunc(commands, c.Name, func(e *Command, name string) int { return strings.Compare(e.Name, name) })
		commands = slices.Insert(commands, i, c)
	}
	return true
}

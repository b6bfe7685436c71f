package router

import (
	"context"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

func init() { localCommands["listCommands"] = handler{fn: listCommands} }

// listCommands lists what a client can run through the router: the
// router's own commands and the data-node commands it forwards (the
// config servers' list without those notForwarded), sorted by name.
func listCommands(c *call) (bson.D, error) {
	ctx, cancel := context.WithTimeout(c.ctx, userFetchTimeout)
	defer cancel()
	reply, err := c.r.cfg.Run(ctx, "admin", bson.D{{Key: "listCommands", Value: 1}}, true)
	if err != nil {
		return nil, err
	}
	v, _ := bsonx.Get(reply, "commands")
	forwarded, _ := v.(bson.D)
	cmds := make(bson.D, 0, len(forwarded)+len(localCommands))
	for _, e := range forwarded {
		if _, local := localCommands[e.Key]; !local && !notForwarded(e.Key) {
			cmds = append(cmds, e)
		}
	}
	for name, h := range localCommands {
		if !listedName(name) { // aliases.go
			continue
		}
		cmds = append(cmds, bson.E{Key: name, Value: bson.D{{Key: "help", Value: ""}, {Key: "adminOnly", Value: h.adminOnly}}})
	}
	slices.SortFunc(cmds, func(a, b bson.E) int { return strings.Compare(a.Key, b.Key) })
	return bson.D{{Key: "commands", Value: cmds}}, nil
}

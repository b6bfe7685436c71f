package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
)

func listCommands(*Ctx, *request.ListCommands) (bson.D, error) {
	cmds := bson.D{}
	for _, cmd := range table {
		n := cmd.Name
		cmds = append(cmds, bson.E{Key: n, Value: bson.D{{Key: "help", Value: cmd.Help}, {Key: "adminOnly", Value: cmd.AdminOnly}}})
	}
	return bson.D{{Key: "commands", Value: cmds}}, nil
}

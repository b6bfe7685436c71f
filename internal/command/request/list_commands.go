package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// ListCommands is the listCommands command.
type ListCommands struct {
	cmdspec.Cmd `cmd:"listCommands" roles:"primary,secondary,router"`
	Value       any    `cmd:",command"`
	Rest        bson.D `cmd:",inline"`
}

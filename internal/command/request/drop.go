package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// Drop is the drop command.
type Drop struct {
	cmdspec.Cmd `cmd:"drop" roles:"primary,router"`
	Collection  cmdspec.CollName `cmd:",command"`
	Rest        bson.D           `cmd:",inline"` // not checked
}

// DropDatabase is the dropDatabase command.
type DropDatabase struct {
	cmdspec.Cmd `cmd:"dropDatabase" roles:"primary,router"`
	Value       any    `cmd:",command"`
	Rest        bson.D `cmd:",inline"` // not checked
}

package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// ListDatabases is the listDatabases command.
type ListDatabases struct {
	cmdspec.Cmd         `cmd:"listDatabases" roles:"primary,secondary,router"`
	Value               any    `cmd:",command"`
	Filter              bson.D `cmd:"filter"`
	NameOnly            bool   `cmd:"nameOnly"`
	AuthorizedDatabases any    `cmd:"authorizedDatabases"`
}

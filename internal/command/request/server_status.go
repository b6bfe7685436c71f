package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// ServerStatus is the serverStatus command; its section selectors are
// accepted and ignored (every section is reported).
type ServerStatus struct {
	cmdspec.Cmd `cmd:"serverStatus" roles:"primary,secondary,router"`
	Value       any    `cmd:",command"`
	Sections    bson.D `cmd:",inline"`
}

package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// Shutdown is the shutdown command; force and timeoutSecs are accepted
// (relaydb always shuts down gracefully).
type Shutdown struct {
	cmdspec.Cmd `cmd:"shutdown" roles:"primary,secondary,router"`
	Value       any    `cmd:",command"`
	Rest        bson.D `cmd:",inline"`
}

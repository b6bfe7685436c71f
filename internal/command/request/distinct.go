package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// Distinct is the distinct command.
type Distinct struct {
	cmdspec.Cmd `cmd:"distinct" roles:"primary,secondary,router"`
	Collection  cmdspec.CollName  `cmd:",command"`
	Key         string            `cmd:"key,required"`
	Query       bson.D            `cmd:"query"`
	Collation   cmdspec.Collation `cmd:"collation"`
	Hint        any               `cmd:"hint"` // accepted, not used yet
}

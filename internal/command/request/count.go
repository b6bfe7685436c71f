package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// Count is the count command.
type Count struct {
	cmdspec.Cmd `cmd:"count" roles:"primary,secondary,router"`
	Collection  cmdspec.CollName  `cmd:",command"`
	Query       bson.D            `cmd:"query"`
	Skip        int64             `cmd:"skip"`
	Limit       int64             `cmd:"limit"`
	Hint        cmdspec.Hint      `cmd:"hint"`
	Collation   cmdspec.Collation `cmd:"collation"`
	Fields      any               `cmd:"fields"` // accepted, ignored (as MongoDB)
}

package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// Insert is the insert command.
type Insert struct {
	cmdspec.Cmd              `cmd:"insert" roles:"primary,router"`
	Collection               cmdspec.CollName `cmd:",command"`
	Documents                []bson.D         `cmd:"documents,required"`
	Ordered                  *any             `cmd:"ordered"`
	BypassDocumentValidation any              `cmd:"bypassDocumentValidation"`
	Let                      any              `cmd:"let"`     // accepted, unused: inserts evaluate no expressions
	StmtIDs                  any              `cmd:"stmtIds"` // read with txnNumber
}

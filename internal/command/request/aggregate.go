package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// Aggregate is the aggregate command.
type Aggregate struct {
	cmdspec.Cmd  `cmd:"aggregate" roles:"primary,secondary,router"`
	Target       any               `cmd:",command"` // a collection name, or 1 for a collectionless pipeline
	Pipeline     bson.A            `cmd:"pipeline,required"`
	Cursor       *bson.D           `cmd:"cursor"`
	Explain      any               `cmd:"explain"` // read leniently: a wrong type is false
	AllowDiskUse bool              `cmd:"allowDiskUse"`
	Hint         cmdspec.Hint      `cmd:"hint"`
	Let          bson.D            `cmd:"let"`
	Collation    cmdspec.Collation `cmd:"collation"`
	// Accepted and not used yet.
	BypassDocumentValidation any `cmd:"bypassDocumentValidation"`
	FromMongos               any `cmd:"fromMongos"`
	NeedsMerge               any `cmd:"needsMerge"`
	IsMapReduceCommand       any `cmd:"isMapReduceCommand"`
}

package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// Update is the update command.
type Update struct {
	cmdspec.Cmd              `cmd:"update" roles:"primary,router"`
	Collection               cmdspec.CollName  `cmd:",command"`
	Updates                  []UpdateStatement `cmd:"updates,required"`
	Ordered                  *any              `cmd:"ordered"`
	BypassDocumentValidation any               `cmd:"bypassDocumentValidation"`
	Let                      bson.D            `cmd:"let"`
	StmtIDs                  any               `cmd:"stmtIds"` // read with txnNumber
}

// UpdateStatement is one element of update's updates.
type UpdateStatement struct {
	Q              bson.D               `cmd:"q,required,notnull"`
	U              cmdspec.Modification `cmd:"u,required"`
	Upsert         bool                 `cmd:"upsert,notnull"`
	Multi          bool                 `cmd:"multi,notnull"`
	ArrayFilters   cmdspec.Filters      `cmd:"arrayFilters"`
	Hint           cmdspec.Hint         `cmd:"hint"`
	Collation      cmdspec.Collation    `cmd:"collation"`
	UpsertSupplied any                  `cmd:"upsertSupplied"`
	C              any                  `cmd:"c"`
}

package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// FindAndModify is the findAndModify command.
type FindAndModify struct {
	cmdspec.Cmd              `cmd:"findAndModify" roles:"primary,router"`
	Collection               cmdspec.CollName     `cmd:",command"`
	Query                    bson.D               `cmd:"query"`
	Sort                     bson.D               `cmd:"sort"`
	Remove                   bool                 `cmd:"remove"`
	Update                   cmdspec.Modification `cmd:"update"`
	New                      bool                 `cmd:"new"`
	Fields                   bson.D               `cmd:"fields"`
	Upsert                   bool                 `cmd:"upsert"`
	ArrayFilters             cmdspec.Filters      `cmd:"arrayFilters"`
	Hint                     cmdspec.Hint         `cmd:"hint"`
	Collation                cmdspec.Collation    `cmd:"collation"`
	BypassDocumentValidation any                  `cmd:"bypassDocumentValidation"`
	Let                      bson.D               `cmd:"let"`
}

package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// ListCollections is the listCollections command.
type ListCollections struct {
	cmdspec.Cmd           `cmd:"listCollections" roles:"primary,secondary,router"`
	Value                 any     `cmd:",command"`
	Filter                bson.D  `cmd:"filter"`
	NameOnly              bool    `cmd:"nameOnly"`
	AuthorizedCollections any     `cmd:"authorizedCollections"`
	Cursor                *bson.D `cmd:"cursor"`
	IncludePendingDrops   any     `cmd:"includePendingDrops"`
}

package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// ListIndexes is the listIndexes command.
type ListIndexes struct {
	cmdspec.Cmd           `cmd:"listIndexes" roles:"primary,secondary,router"`
	Collection            cmdspec.CollName `cmd:",command"`
	Cursor                *bson.D          `cmd:"cursor"`
	IncludeBuildUUIDs     any              `cmd:"includeBuildUUIDs"`
	IncludeIndexBuildInfo any              `cmd:"includeIndexBuildInfo"`
}

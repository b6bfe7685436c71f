package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// CreateIndexes is the createIndexes command.
type CreateIndexes struct {
	cmdspec.Cmd               `cmd:"createIndexes" roles:"primary,router"`
	Collection                cmdspec.CollName `cmd:",command"`
	Indexes                   []bson.D         `cmd:"indexes,required"`
	CommitQuorum              any              `cmd:"commitQuorum"`
	IgnoreUnknownIndexOptions any              `cmd:"ignoreUnknownIndexOptions"`
	IsTimeseriesNamespace     any              `cmd:"isTimeseriesNamespace"`
}

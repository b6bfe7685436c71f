package router

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// The router runs aggregation merge parts (aggmerge.go), so it takes
// agg's memory parameters (internalDocumentSourceGroupMaxMemoryBytes,
// internalQueryMaxBlockingSortMemoryUsageBytes, ...) with setParameter,
// as mongos does; any other parameter is refused as unrecognized.
func init() {
	localCommands["setParameter"] = handler{fn: setAggParameter, adminOnly: true}
}

func setAggParameter(c *call) (bson.D, error) {
	was := bson.D{}
	for _, e := range c.cmd[1:] {
		if isCommandOption(e.Key) || strings.HasPrefix(e.Key, "$") {
			continue
		}
		old, found, err := agg.SetParameter(e.Key, e.Value)
		if !found {
			return nil, mongoerr.New(mongoerr.InvalidOptions, "attempted to set unrecognized parameter [%s], use help:true to see options", e.Key)
		}
		if err != nil {
			return nil, err
		}
		was = append(was, bson.E{Key: e.Key, Value: old})
	}
	if len(was) == 0 {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "no option found to set, use help:true to see options")
	}
	return bson.D{{Key: "was", Value: was}}, nil
}

// isCommandOption reports the generic fields every command may carry.
func isCommandOption(key string) bool {
	switch key {
	case "lsid", "comment", "writeConcern", "readConcern", "maxTimeMS", "txnNumber", "autocommit", "startTransaction",
		"apiVersion", "apiStrict", "apiDeprecationErrors":
		return true
	}
	return false
}

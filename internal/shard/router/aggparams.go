package router

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command"
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
		old, handled, err := c.r.setAuthParameter(e.Key, e.Value) // user_cache_gen.go
		if !handled {
			old, err = command.SetAggParameter(e.Key, e.Value)
		}
		if err != nil {
			return nil, err
		}
		was = append(was, bson.E{Key: e.Key, Value: old})
	}
	return command.SetParameterReply(was)
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

package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// MapReduce is the (deprecated) mapReduce command.
type MapReduce struct {
	cmdspec.Cmd `cmd:"mapReduce" roles:"primary,secondary"`
	Collection  cmdspec.CollName  `cmd:",command"`
	Map         any               `cmd:"map,required"`
	Reduce      any               `cmd:"reduce,required"`
	Out         any               `cmd:"out,required"`
	Query       bson.D            `cmd:"query"`
	Sort        bson.D            `cmd:"sort"`
	Limit       int64             `cmd:"limit"`
	Finalize    any               `cmd:"finalize"`
	Scope       bson.D            `cmd:"scope"`
	Collation   cmdspec.Collation `cmd:"collation"`
	// Accepted and not used (as mongod since 4.4 for jsMode and verbose).
	JSMode                   any `cmd:"jsMode"`
	Verbose                  any `cmd:"verbose"`
	BypassDocumentValidation any `cmd:"bypassDocumentValidation"`
}

package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// CurrentOp is the currentOp command: fields other than $all and $ownOps
// filter the operations.
type CurrentOp struct {
	cmdspec.Cmd `cmd:"currentOp" roles:"primary,secondary"`
	Value       any    `cmd:",command"`
	All         *bool  `cmd:"$all"`
	OwnOps      *bool  `cmd:"$ownOps"`
	Rest        bson.D `cmd:",inline"`
}

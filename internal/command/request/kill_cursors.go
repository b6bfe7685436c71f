package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// KillCursors is the killCursors command.
type KillCursors struct {
	cmdspec.Cmd `cmd:"killCursors" roles:"primary,secondary,router"`
	Collection  cmdspec.CollName `cmd:",command"`
	Cursors     bson.A           `cmd:"cursors,required"`
}

package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// CollMod is the collMod command; relaydb supports none of its options yet.
type CollMod struct {
	cmdspec.Cmd `cmd:"collMod" roles:"primary,router"`
	Collection  cmdspec.CollName `cmd:",command"`
	Options     bson.D           `cmd:",inline"`
}

package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// ConfigureFailPoint is {configureFailPoint: "failCommand", mode, data}.
type ConfigureFailPoint struct {
	cmdspec.Cmd `cmd:"configureFailPoint" roles:"primary,secondary,router"`
	Name        any    `cmd:",command"`
	Mode        *any   `cmd:"mode"` // "alwaysOn", "off" or {times, skip}
	Data        bson.D `cmd:"data"`
}

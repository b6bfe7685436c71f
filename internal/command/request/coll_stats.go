package request

import (
	"github.com/relaydb/relaydb/internal/cmdspec"
)

// CollStats is the collStats command.
type CollStats struct {
	cmdspec.Cmd `cmd:"collStats" roles:"primary,secondary,router"`
	Collection  cmdspec.CollName `cmd:",command"`
	Scale       any              `cmd:"scale"` // accepted; sizes are in bytes
	Verbose     any              `cmd:"verbose"`
}

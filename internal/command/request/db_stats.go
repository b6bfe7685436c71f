package request

import (
	"github.com/relaydb/relaydb/internal/cmdspec"
)

// DBStats is the dbStats command.
type DBStats struct {
	cmdspec.Cmd `cmd:"dbStats" roles:"primary,secondary,router"`
	Value       any `cmd:",command"`
	Scale       any `cmd:"scale"` // accepted; sizes are in bytes
	FreeStorage any `cmd:"freeStorage"`
}

package request

import "github.com/relaydb/relaydb/internal/cmdspec"

// KillOp is the killOp command: op is the opid currentOp reports (a
// number on a data node; "<shard>:<opid>" through a router).
type KillOp struct {
	cmdspec.Cmd `cmd:"killOp" roles:"primary,secondary"`
	Value       any `cmd:",command"`
	Op          any `cmd:"op"`
}

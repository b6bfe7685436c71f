package command

import (
	"time"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/js"
)

// scriptVars gives a command with maxTimeMS its own JavaScript session
// ($where, $function, $accumulator) whose evaluations stop with
// MaxTimeMSExpired once their times add up to maxTimeMS (the cursor's
// processing time, as mongod counts it, though only JavaScript's share);
// without maxTimeMS vars is returned unchanged and each compiled filter or
// pipeline makes a session bounded only by js.DefaultEvalLimit per
// evaluation.
// TODO(#14): killOp and a client's disconnect do not interrupt
// JavaScript.
func (c *Ctx) scriptVars(vars *expr.Vars) *expr.Vars {
	ms, ok, _ := c.int64Field("maxTimeMS")
	if !ok || ms <= 0 {
		return vars
	}
	return vars.WithScript(js.NewSession(js.Options{MaxTime: time.Duration(ms) * time.Millisecond}))
}

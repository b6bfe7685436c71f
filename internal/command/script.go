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
// killOp of the command interrupts an evaluation (Interrupted). Without
// either, vars is returned unchanged and each compiled filter or pipeline
// makes a session bounded only by js.DefaultEvalLimit per evaluation.
// TODO(#14): killOp of a getMore does not reach the JavaScript of its
// cursor's filter (the session watches the command that made it), and a
// client's disconnect interrupts nothing.
func (c *Ctx) scriptVars(vars *expr.Vars) *expr.Vars {
	var opts js.Options
	if ms, ok, _ := c.int64Field("maxTimeMS"); ok && ms > 0 {
		opts.MaxTime = time.Duration(ms) * time.Millisecond
	}
	if op := c.registeredOp(); op != nil { // killop.go
		opts.Ctx, opts.Killed = op.context(), op.killed.Load
	}
	if opts.MaxTime == 0 && opts.Ctx == nil {
		return vars
	}
	return vars.WithScript(js.NewSession(opts))
}

package command

import "context"

// A running operation's context is made on first use: most commands
// (a find by _id, an insert) never wait on one, and making a child of the
// shared shutdown context per command costs a lock and map insert on that
// parent. killOp and the end of the command cancel it whether or not it
// exists yet; one made afterwards starts cancelled.

// context returns op's context, cancelled once op is killed or ends or
// the process shuts down.
func (op *runningOp) context() context.Context {
	op.ctxMu.Lock()
	defer op.ctxMu.Unlock()
	if op.ctx == nil {
		op.ctx, op.cancel = context.WithCancel(op.parent())
		if op.ended || op.killed.Load() {
			op.cancel()
		}
	}
	return op.ctx
}

// kill marks op killed and cancels its context.
func (op *runningOp) kill() {
	op.killed.Store(true)
	op.cancelContext(false)
}

// end cancels op's context when its command returns.
func (op *runningOp) end() { op.cancelContext(true) }

func (op *runningOp) cancelContext(ended bool) {
	op.ctxMu.Lock()
	defer op.ctxMu.Unlock()
	op.ended = op.ended || ended
	if op.cancel != nil {
		op.cancel()
	}
}

package command

import (
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/failpoint"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/session"
)

// The named fail points' hooks in the command layer (package failpoint):
// maxTimeAlwaysTimeOut before a command runs, and the connection close
// onPrimaryTransactionalWrite asks for after a retryable write ran. The
// dispatcher calls maxTimePoint before every command and
// closeAfterTxnWrite after it, so the profiler and the fsync lock hook
// there too.
// TODO(#14): name them beforeCommand/afterCommand in dispatcher.go.

// maxTimePoint is the maxTimeAlwaysTimeOut fail point: a client operation
// with a time limit — its own maxTimeMS, or for a getMore the limit its
// cursor was opened with — fails at once with MaxTimeMSExpired, as
// mongod's first interrupt check does.
func maxTimePoint(ctx *Ctx) error {
	if err := maxTimeFail(ctx); err != nil {
		return err
	}
	if err := waitFsyncUnlock(ctx); err != nil { // fsync_lock.go
		return err
	}
	// This is the dispatcher's hook before a command runs: the profiler
	// (profiler.go) notes the start of a command that will run.
	profileBegin(ctx)
	return nil
}

func maxTimeFail(ctx *Ctx) error {
	if !failpoint.MaxTimeAlwaysTimeOut.On() || internalRequest(ctx) {
		return nil
	}
	if !ctx.timeLimited() && !ctx.cursorTimeLimited() {
		return nil
	}
	if _, ok := failpoint.MaxTimeAlwaysTimeOut.Check(); !ok {
		return nil
	}
	return mongoerr.New(mongoerr.MaxTimeMSExpired, "operation exceeded time limit")
}

// timeLimited reports whether the command sets a time limit (maxTimeMS),
// which a cursor it opens keeps for its getMores.
func (c *Ctx) timeLimited() bool {
	ms, ok, _ := c.int64Field("maxTimeMS")
	return ok && ms > 0
}

// cursorTimeLimited reports whether a getMore's cursor was opened with a
// time limit.
func (c *Ctx) cursorTimeLimited() bool {
	if c.Name != "getMore" {
		return false
	}
	id, ok := bsonx.AsInt64(c.Cmd[0].Value)
	return ok && c.D.eng.Cursors().TimeLimited(id)
}

// closeAfterTxnWrite closes the connection instead of replying when the
// onPrimaryTransactionalWrite fail point closed it during this retryable
// write (its lsid and txnNumber).
func closeAfterTxnWrite(ctx *Ctx) {
	profileEnd(ctx) // profiler.go: this is the dispatcher's hook after a command ran
	if !failpoint.ClosePending() {
		return
	}
	v, ok := ctx.field("txnNumber")
	if !ok || ctx.Req == nil {
		return
	}
	txn, _ := v.(int64)
	lsid, _ := ctx.field("lsid")
	key, ok := session.KeyOf(asDoc(lsid))
	if ok && failpoint.TakeClose(string(key), txn) {
		ctx.Req.CloseConn = true
	}
}

package command

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// writeConcern is a parsed {w, j, wtimeout}.
type writeConcern struct {
	w        any // int64 count or string mode; nil = default (1)
	j        bool
	wtimeout time.Duration
}

func (wc writeConcern) unacknowledged() bool {
	n, ok := wc.w.(int64)
	return ok && n == 0 && !wc.j
}

func (c *Ctx) writeConcern() (writeConcern, error) {
	var wc writeConcern
	d, ok, err := c.doc("writeConcern")
	if err != nil {
		return wc, err
	}
	if !ok || !hasW(d) {
		wc.w = c.defaultW()
		if !ok {
			return wc, nil
		}
	}
	for _, e := range d {
		switch e.Key {
		case "w":
			switch v := e.Value.(type) {
			case string:
				wc.w = v
			default:
				n, isNum := bsonx.AsInt64(v)
				if !isNum || n < 0 {
					return wc, mongoerr.New(mongoerr.FailedToParse, "w has to be a non-negative number and not greater than 50; found: %v", v)
				}
				wc.w = n
			}
		case "j":
			b, isBool := e.Value.(bool)
			if !isBool {
				f, isNum := bsonx.AsFloat64(e.Value)
				if !isNum {
					return wc, mongoerr.New(mongoerr.FailedToParse, "j must be numeric or a boolean value")
				}
				b = f != 0
			}
			wc.j = b
		case "wtimeout", "wtimeoutMS":
			n, _ := bsonx.AsInt64(e.Value)
			wc.wtimeout = time.Duration(n) * time.Millisecond
		case "fsync", "provenance", "getLastError":
		default:
			return wc, mongoerr.New(mongoerr.FailedToParse, "unrecognized write concern field: %s", e.Key)
		}
	}
	if c.D.repl != nil {
		return wc, nil // the coordinator validates w against the set's config
	}
	if n, isNum := wc.w.(int64); isNum && n > 1 {
		return wc, mongoerr.New(mongoerr.BadValue, "cannot use 'w' > 1 on a standalone")
	}
	if s, isStr := wc.w.(string); isStr && s != "majority" {
		return wc, mongoerr.New(mongoerr.UnknownReplWriteConcern, "No write concern mode named '%s' found in replica set configuration", s)
	}
	return wc, nil
}

func hasW(d bson.D) bool {
	_, ok := bsonx.Get(d, "w")
	return ok
}

// defaultW is the implicit default write concern: "majority" on a replica
// set (MongoDB 5.0+), 1 on a standalone.
func (c *Ctx) defaultW() any {
	if c.D.repl != nil {
		return "majority"
	}
	return nil
}

// needsReplWait reports whether wc waits for other members (anything but
// w:1 / w:0 / the standalone default).
func (wc writeConcern) needsReplWait() bool {
	switch w := wc.w.(type) {
	case string:
		return true
	case int64:
		return w > 1
	}
	return false
}

// awaitWriteConcern waits for durability when j:true and returns a
// writeConcernError document when the wait failed, nil otherwise.
func (c *Ctx) awaitWriteConcern(wc writeConcern, res *exec.WriteResult) bson.D {
	if wc.unacknowledged() {
		return nil
	}
	repl := c.D.repl != nil && wc.needsReplWait()
	if !wc.j && !repl {
		return nil
	}
	ctx := context.Background()
	if wc.wtimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, wc.wtimeout)
		defer cancel()
	}
	if wc.j && res.Last.Seq != 0 {
		if err := c.D.eng.WaitDurable(ctx, res.Last); err != nil {
			return wcError(mongoerr.New(mongoerr.WriteConcernFailed, "waiting for the journal timed out"))
		}
	}
	if repl {
		ts := res.Last.TS
		if res.Last.Seq == 0 {
			ts = c.D.eng.Catalog().Oplog().Visible() // nothing written: wait for what we saw
		}
		if err := c.D.repl.WaitWriteConcern(ctx, ts, wc.w, wc.j); err != nil {
			return wcError(err)
		}
	}
	return nil
}

// callWriting runs c's handler; for commands with AfterWrite it parses the
// writeConcern first (a bad one refuses the command before it writes) and
// afterwards, whether the command succeeded or failed, waits for it on
// everything written so far, adding writeConcernError to the reply or
// the error reply when the wait fails (the command's own effect stays, as
// with MongoDB).
func (d *Dispatcher) callWriting(c *Command, ctx *Ctx) (bson.D, error) {
	if ctx.txn != nil { // a transaction's statement (txn_run.go)
		return d.runInTxn(ctx, func() (bson.D, error) { return d.callWritingNow(c, ctx) })
	}
	return d.callWritingNow(c, ctx)
}

// callWritingNow is callWriting's run and wait.
func (d *Dispatcher) callWritingNow(c *Command, ctx *Ctx) (bson.D, error) {
	if c.AfterWrite == nil || !c.AfterWrite(ctx.Cmd) {
		return c.Def.run(ctx)
	}
	wc, err := ctx.writeConcern()
	if err != nil {
		return nil, err
	}
	reply, err := c.Def.run(ctx)
	if err != nil {
		return nil, ctx.failedWriteConcern(wc, err)
	}
	res := exec.WriteResult{Last: d.eng.Catalog().LastWrite()}
	if wce := ctx.awaitWriteConcern(wc, &res); wce != nil {
		reply = append(reply, bson.E{Key: "writeConcernError", Value: wce})
	}
	return reply, nil
}

// failedWriteConcern waits for wc after a writing command failed, on
// everything written so far, and returns err with the writeConcernError
// if the wait failed; a not-primary or shutdown error has nothing to wait
// for.
func (c *Ctx) failedWriteConcern(wc writeConcern, err error) error {
	if retryableCodes[mongoerr.From(err).Code] {
		return err
	}
	res := exec.WriteResult{Last: c.D.eng.Catalog().LastWrite()}
	return withWCE(err, c.awaitWriteConcern(wc, &res))
}

// wceError is a command's error with the writeConcernError of the wait
// that followed it: mongod waits for a failed writing command's write
// concern too (on everything written so far) and answers both, ok: 0 with
// writeConcernError (drivers raise the write concern error first).
type wceError struct {
	error
	wce bson.D
}

func (e *wceError) Unwrap() error { return e.error }

// ExtraInfo adds writeConcernError to the wrapped error's extra fields.
func (e *wceError) ExtraInfo() bson.D {
	return append(extraInfo(e.error), bson.E{Key: "writeConcernError", Value: e.wce})
}

// withWCE is err carrying wce; err itself when wce is nil.
func withWCE(err error, wce bson.D) error {
	if wce == nil {
		return err
	}
	return &wceError{error: err, wce: wce}
}

// wcError is a writeConcernError document; a deadline is MongoDB's
// wtimeout (WriteConcernFailed with errInfo.wtimeout).
func wcError(err error) bson.D {
	me := mongoerr.From(err)
	if errors.Is(err, context.DeadlineExceeded) {
		me = mongoerr.New(mongoerr.WriteConcernFailed, "waiting for replication timed out")
	}
	d := bson.D{
		{Key: "code", Value: int32(me.Code)},
		{Key: "codeName", Value: me.Code.Name()},
		{Key: "errmsg", Value: me.Msg},
	}
	if me.Code == mongoerr.WriteConcernFailed {
		d = append(d, bson.E{Key: "errInfo", Value: bson.D{{Key: "wtimeout", Value: true}}})
	}
	if len(me.Labels) > 0 {
		labels := bson.A{}
		for _, l := range me.Labels {
			labels = append(labels, l)
		}
		d = append(d, bson.E{Key: "errorLabels", Value: labels})
	}
	return d
}

// writeReply builds the reply fields of insert/update/delete.
func (c *Ctx) writeReply(wc writeConcern, res *exec.WriteResult, withModified bool) bson.D {
	reply := bson.D{{Key: "n", Value: int32(res.N)}}
	if withModified {
		reply = append(reply, bson.E{Key: "nModified", Value: int32(res.NModified)})
	}
	if len(res.Upserted) > 0 {
		ups := bson.A{}
		for _, u := range res.Upserted {
			ups = append(ups, bson.D{{Key: "index", Value: int32(u.Index)}, {Key: "_id", Value: u.ID}})
		}
		reply = append(reply, bson.E{Key: "upserted", Value: ups})
	}
	if len(res.Errors) > 0 {
		errs := bson.A{}
		for _, we := range res.Errors {
			d := bson.D{{Key: "index", Value: int32(we.Index)}, {Key: "code", Value: int32(we.Err.Code)}}
			if we.KeyPattern != nil {
				d = append(d, bson.E{Key: "keyPattern", Value: we.KeyPattern}, bson.E{Key: "keyValue", Value: we.KeyValue})
			}
			d = append(d, bson.E{Key: "errmsg", Value: we.Err.Msg})
			errs = append(errs, append(d, we.Info...))
		}
		reply = append(reply, bson.E{Key: "writeErrors", Value: errs})
	}
	if wce := c.awaitWriteConcern(wc, res); wce != nil {
		reply = append(reply, bson.E{Key: "writeConcernError", Value: wce})
	}
	return reply
}

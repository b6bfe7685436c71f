// Package failpoint is MongoDB's failCommand fail point, which the test
// command configureFailPoint sets on data nodes and routers alike:
// drivers' conformance tests make chosen commands fail with a code and
// labels, block, close the connection or report a writeConcernError.
//
// Invariants:
//   - An unarmed fail point costs one atomic load per command (Check).
//   - Configure replaces the whole configuration at once; Check consumes
//     one activation (times, skip) under the lock.
//
// TODO(#2): gate behind --setParameter enableTestCommands as MongoDB does.
package failpoint

import (
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// FailCommand is one process's failCommand fail point; the zero value is off.
type FailCommand struct {
	armed atomic.Bool // false: Check never locks
	mu    sync.Mutex
	cfg   config // REQUIRES: mu
}

// config is a parsed configureFailPoint request.
type config struct {
	mode
	commands map[string]bool
	act      Activation
	appName  string
}

// Activation is one triggered fail point, applied around a command.
type Activation struct {
	code      int32
	labels    []string
	closeConn bool
	block     time.Duration
	wce       bson.D
}

// Check returns the activation for command cmd from a client named
// appName, consuming one use; nil when the fail point does not apply.
func (f *FailCommand) Check(cmd, appName string) *Activation {
	return f.CheckNames(cmd, "", appName)
}

// CheckNames is Check for a command sent under an alias: it applies when
// failCommands lists the name as sent or the command's own name (mongod
// matches ismaster, an alias of hello, by either).
func (f *FailCommand) CheckNames(sent, canonical, appName string) *Activation {
	if !f.armed.Load() {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	c := &f.cfg
	listed := c.commands[sent] || (canonical != "" && c.commands[canonical])
	if !c.on || !listed || (c.appName != "" && c.appName != appName) {
		return nil
	}
	if !c.consume() {
		f.armed.Store(c.on)
		return nil
	}
	a := c.act
	return &a
}

// Before blocks for blockTimeMS, then reports whether to close the
// connection and the error to fail the command with; nil lets it run.
func (a *Activation) Before() (closeConn bool, err error) {
	if a.block > 0 {
		time.Sleep(a.block)
	}
	if a.closeConn {
		return true, mongoerr.New(mongoerr.HostUnreachable, "connection closed by failCommand")
	}
	if a.code != 0 {
		return false, &mongoerr.Error{Code: mongoerr.Code(a.code), Msg: "Failing command via 'failCommand' failpoint", Labels: a.labels}
	}
	return false, nil
}

// After adds the writeConcernError and the labels to a successful reply.
func (a *Activation) After(reply bson.D) bson.D {
	if a.wce != nil {
		reply = append(reply, bson.E{Key: "writeConcernError", Value: a.wce})
	}
	if a.labels != nil && a.code == 0 {
		labels := bson.A{}
		for _, l := range a.labels {
			labels = append(labels, l)
		}
		reply = append(reply, bson.E{Key: "errorLabels", Value: labels})
	}
	return reply
}

// Configure applies {configureFailPoint: name, mode, data}; mode nil is
// MongoDB's "Missing mode".
func (f *FailCommand) Configure(name, md any, data bson.D) error {
	if n, _ := name.(string); n != "failCommand" {
		return mongoerr.New(mongoerr.BadValue, "Cannot configure fail point %v: relaydb supports only failCommand", name)
	}
	if md == nil {
		return mongoerr.New(mongoerr.BadValue, "Missing mode")
	}
	nc := config{mode: mode{times: -1}, commands: map[string]bool{}}
	if err := nc.setMode(md); err != nil {
		return err
	}
	if err := nc.setData(data); err != nil {
		return err
	}
	f.mu.Lock()
	f.cfg = nc
	f.armed.Store(nc.on)
	f.mu.Unlock()
	return nil
}

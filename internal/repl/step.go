package repl

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/repl/topology"
)

// A stepped coordinator (Options.Stepped) runs no goroutines: the driver
// (internal/sim, tests) calls Tick for the topology's timers and Step for
// what Start's other goroutines do, on a clock.Manual, with a memnet
// transport whose messages it delivers itself.

// stepState is what Step keeps between calls; only the driver's
// goroutine touches it (memnet runs done callbacks on the deliverer).
type stepState struct {
	tail           localTail
	reportInFlight bool
	reportNext     bool // a report was asked for (progress)
	nextReport     int64
}

// Step does once what Start's goroutines do continuously: it notes the
// local oplog's new entries (written; durable once the WAL is synced),
// feeds the positions posted by the Syncer to the topology, gives a
// stepped Syncer its turn and sends replSetUpdatePosition upstream when
// one is due and none is in flight.
func (c *Coordinator) Step() {
	if op, ok := c.noteLocal(&c.step.tail); ok {
		if err := c.syncForDurable(context.Background()); err == nil {
			c.OnDurable(op)
		} else {
			c.log.Error("cannot sync the oplog", "err", err)
		}
	}
	c.feedPending()
	c.mu.Lock()
	syncer, _ := c.mu.syncer.(Stepper)
	c.mu.Unlock()
	if syncer != nil {
		syncer.Step()
		c.feedPending()
	}
	c.reportIfDue()
}

// reportIfDue sends the position report when progress asked for one or
// the heartbeat interval passed, one at a time.
func (c *Coordinator) reportIfDue() {
	select {
	case <-c.report:
		c.step.reportNext = true
	default:
	}
	now := c.now().UnixNano()
	if c.step.reportInFlight || (!c.step.reportNext && now < c.step.nextReport) {
		return
	}
	c.step.reportNext = false
	c.step.nextReport = now + int64(c.reportInterval())
	host, cmd, ok := c.positionReport()
	if !ok {
		return
	}
	c.step.reportInFlight = true
	c.opts.Transport.Send(host, cmd, 2*c.reportInterval(), func(_ bson.D, err error) {
		c.step.reportInFlight = false
		c.reportDone(host, err)
	})
}

// View is a member's replication state as its command path sees it.
type View struct {
	State                         topology.MemberState
	Term                          int64
	Writable                      bool   // accepts writes
	SyncSource                    string // host, "" if none
	Applied, Durable, CommitPoint topology.OpTime
	ConfigVersion                 int64
}

// View returns the member's published state (lock-free).
func (c *Coordinator) View() View {
	s := c.load()
	return View{State: s.state, Term: s.term, Writable: s.writable, SyncSource: s.syncHost,
		Applied: s.applied, Durable: s.durable, CommitPoint: s.commitPoint, ConfigVersion: s.cfg.Version}
}

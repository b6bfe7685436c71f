package command

import (
	"sync/atomic"
	"time"
)

// Metrics counts requests for serverStatus.
type Metrics struct {
	current, total atomic.Int64
	opcounters     struct{ insert, query, update, delete, getmore, command atomic.Int64 }
	unknown        atomic.Int64
	latency        struct{ reads, writes, commands latencyStat }
}

type latencyStat struct{ micros, ops atomic.Int64 }

func newMetrics() *Metrics { return &Metrics{} }

// ConnOpened and ConnClosed track connection counts.
func (m *Metrics) ConnOpened() { m.current.Add(1); m.total.Add(1) }

// ConnClosed is called when a connection ends.
func (m *Metrics) ConnClosed() { m.current.Add(-1) }

func (m *Metrics) observe(c *Command, d time.Duration, err error) {
	c.calls.Add(1)
	if err != nil {
		c.failed.Add(1)
	}
	us := d.Microseconds()
	switch c.Name {
	case "find", "aggregate", "count", "distinct":
		m.latency.reads.micros.Add(us)
		m.latency.reads.ops.Add(1)
	case "insert", "update", "delete", "findAndModify":
		m.latency.writes.micros.Add(us)
		m.latency.writes.ops.Add(1)
	default:
		m.latency.commands.micros.Add(us)
		m.latency.commands.ops.Add(1)
	}
	switch c.Name {
	case "find", "aggregate":
		m.opcounters.query.Add(1)
	case "getMore":
		m.opcounters.getmore.Add(1)
	case "insert", "update", "delete":
		// counted per document by the handlers
	default:
		m.opcounters.command.Add(1)
	}
}

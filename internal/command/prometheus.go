package command

import (
	"fmt"
	"io"
)

// WritePrometheus writes the serverStatus counters in Prometheus's text
// exposition format (version 0.0.4) for --metricsPort's GET /metrics:
// connections, opcounters, per-command calls and failures (the command
// table's names, as serverStatus metrics.commands), and latency totals.
// It reads atomics only: no lock, bounded by the command table's size.
func (m *Metrics) WritePrometheus(w io.Writer) error {
	p := promWriter{w: w}
	p.metric("relaydb_connections_current", "gauge", "open client connections", "", m.current.Load())
	p.metric("relaydb_connections_created_total", "counter", "client connections accepted", "", m.total.Load())
	p.header("relaydb_opcounters_total", "counter", "operations by type, as serverStatus opcounters")
	for _, c := range []struct {
		name string
		n    int64
	}{{"insert", m.opcounters.insert.Load()}, {"query", m.opcounters.query.Load()}, {"update", m.opcounters.update.Load()},
		{"delete", m.opcounters.delete.Load()}, {"getmore", m.opcounters.getmore.Load()}, {"command", m.opcounters.command.Load()}} {
		p.sample("relaydb_opcounters_total", `type="`+c.name+`"`, c.n)
	}
	p.header("relaydb_commands_total", "counter", "commands run, by name")
	p.header("relaydb_commands_failed_total", "counter", "commands that failed, by name")
	for _, c := range table {
		p.sample("relaydb_commands_total", `command="`+c.Name+`"`, c.calls.Load())
		p.sample("relaydb_commands_failed_total", `command="`+c.Name+`"`, c.failed.Load())
	}
	p.header("relaydb_latency_micros_total", "counter", "time spent in commands, by kind (serverStatus opLatencies)")
	p.header("relaydb_latency_ops_total", "counter", "commands timed, by kind")
	for _, l := range []struct {
		kind string
		s    *latencyStat
	}{{"reads", &m.latency.reads}, {"writes", &m.latency.writes}, {"commands", &m.latency.commands}} {
		p.sample("relaydb_latency_micros_total", `kind="`+l.kind+`"`, l.s.micros.Load())
		p.sample("relaydb_latency_ops_total", `kind="`+l.kind+`"`, l.s.ops.Load())
	}
	return p.err
}

// promWriter writes exposition lines, keeping the first error.
type promWriter struct {
	w   io.Writer
	err error
}

func (p *promWriter) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *promWriter) header(name, typ, help string) {
	p.printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}

func (p *promWriter) sample(name, labels string, v int64) {
	if labels != "" {
		name += "{" + labels + "}"
	}
	p.printf("%s %d\n", name, v)
}

func (p *promWriter) metric(name, typ, help, labels string, v int64) {
	p.header(name, typ, help)
	p.sample(name, labels, v)
}

package suite

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/relaydb/relaydb/internal/bench"
	"github.com/relaydb/relaydb/internal/bench/experiment"
	"github.com/relaydb/relaydb/internal/bench/svg"
)

// Write stores the report as <dir>/<name>.md, .json, -throughput.svg and
// -latency.svg, and returns the paths written.
func Write(rep *Report, dir, command string) ([]string, error) {
	return experiment.WriteResults(dir, rep.Name, Markdown(rep, command), rep,
		experiment.File{Suffix: "-throughput.svg", Body: throughputChart(rep)},
		experiment.File{Suffix: "-latency.svg", Body: latencyChart(rep)})
}

// label names an entry's series: "A" for workload a, "load w:0" for loads.
func label(e Entry) string {
	if e.Workload != "load" {
		return strings.ToUpper(e.Workload)
	}
	if e.Durability == "default" {
		return "load"
	}
	return "load " + e.Durability
}

// workloadName is "load" or the upper-case preset letter.
func workloadName(e Entry) string {
	if e.Workload == "load" {
		return "load"
	}
	return strings.ToUpper(e.Workload)
}

// threadAxis lists the distinct thread counts, ascending.
func threadAxis(rep *Report) []int {
	var out []int
	seen := map[int]bool{}
	for _, e := range rep.Entries {
		if !seen[e.Threads] {
			seen[e.Threads] = true
			out = append(out, e.Threads)
		}
	}
	sort.Ints(out)
	return out
}

func throughputChart(rep *Report) string {
	threads := threadAxis(rep)
	var x []string
	for _, t := range threads {
		x = append(x, strconv.Itoa(t))
	}
	idx := map[string]int{}
	var series []svg.Series
	for _, e := range rep.Entries {
		l := label(e)
		if l == "load" { // the single main load is not a curve
			continue
		}
		i, ok := idx[l]
		if !ok {
			i = len(series)
			idx[l] = i
			series = append(series, svg.Series{Name: l, Values: make([]float64, len(threads))})
		}
		for ti, t := range threads {
			if t == e.Threads {
				series[i].Values[ti] = e.Result.Throughput
			}
		}
	}
	return svg.Line("Throughput vs client threads ("+rep.Name+")", "client threads", "ops/s", x, series)
}

// latencyThreads picks the thread count the latency chart shows: 8 when
// present (the reference point), else the first.
func latencyThreads(rep *Report) int {
	threads := threadAxis(rep)
	for _, t := range threads {
		if t == 8 {
			return 8
		}
	}
	if len(threads) == 0 {
		return 0
	}
	return threads[0]
}

func latencyChart(rep *Report) string {
	t := latencyThreads(rep)
	var groups []string
	p := []svg.Series{{Name: "p50"}, {Name: "p95"}, {Name: "p99"}}
	for _, e := range rep.Entries {
		if e.Threads != t {
			continue
		}
		for _, o := range e.Result.Ops {
			if strings.HasSuffix(o.Name, "-FAILED") {
				continue
			}
			groups = append(groups, label(e)+" "+o.Name)
			p[0].Values = append(p[0].Values, float64(o.P50Micros))
			p[1].Values = append(p[1].Values, float64(o.P95Micros))
			p[2].Values = append(p[2].Values, float64(o.P99Micros))
		}
	}
	return svg.Bars(fmt.Sprintf("Latency percentiles at %d threads (%s)", t, rep.Name), "latency (µs)", groups, p)
}

// Markdown renders the report as the committed results table.
func Markdown(rep *Report, command string) string {
	var b strings.Builder
	m := rep.Machine
	fmt.Fprintf(&b, "# Benchmark suite: %s\n\n", rep.Name)
	if command != "" {
		fmt.Fprintf(&b, "Command: `%s`\n\n", command)
	}
	b.WriteString("| machine | |\n|---|---|\n")
	for _, kv := range [][2]string{
		{"date", m.Date}, {"cores", strconv.Itoa(m.Cores)}, {"cpu", m.CPUModel},
		{"memory", fmt.Sprintf("%d MB", m.MemoryMB)}, {"os", m.OS + " " + m.Kernel},
		{"go", m.GoVersion}, {"commit", m.GitCommit}, {"server version", m.ServerVersion}, {"target", m.Target},
	} {
		fmt.Fprintf(&b, "| %s | %s |\n", kv[0], kv[1])
	}
	fmt.Fprintf(&b, "\nrecordcount %d, operationcount %d per workload run, %d records per durability load. "+
		"Client and server share the machine's cores; CPU columns are core-microseconds per operation "+
		"(server: serverStatus extra_info user+system time; client: getrusage of the bench process).\n\n",
		rep.Config.RecordCount, rep.Config.OperationCount, rep.Config.DurabilityRecords)
	b.WriteString("## Throughput and CPU cost\n\n")
	b.WriteString("| workload | write concern | threads | operations | runtime (ms) | ops/s | server core-µs/op | client core-µs/op |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, e := range rep.Entries {
		r := e.Result
		srv := "n/a"
		if r.ServerCPUKnown {
			srv = fmt.Sprintf("%.1f", r.ServerCPUPerOp)
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %.0f | %s | %.1f |\n", workloadName(e), e.Durability, e.Threads,
			r.Operations, r.RunTimeMs, r.Throughput, srv, r.ClientCPUPerOp)
	}
	b.WriteString("\n## Latency (µs)\n\n")
	b.WriteString("| workload | write concern | threads | operation | count | avg | p50 | p95 | p99 | max | not OK |\n")
	b.WriteString("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, e := range rep.Entries {
		for _, o := range e.Result.Ops {
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %d | %.0f | %d | %d | %d | %d | %d |\n", workloadName(e), e.Durability,
				e.Threads, o.Name, o.Operations, o.AvgMicros, o.P50Micros, o.P95Micros, o.P99Micros, o.MaxMicros, notOK(o))
		}
	}
	b.WriteString(scaleMarkdown(rep.Scale, rep.Config.ScaleChunk))
	fmt.Fprintf(&b, "\n![throughput](%s-throughput.svg)\n\n![latency](%s-latency.svg)\n", rep.Name, rep.Name)
	return b.String()
}

// scaleMarkdown is the scale series' table, "" without one.
func scaleMarkdown(scale []ScaleEntry, chunk int64) string {
	if len(scale) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Scale series\n\nEach record count loaded into a fresh node (default settings) in chunks of %d "+
		"records at %d threads, left until quiet (its CPU after the load, compactions mostly, counts with the inserts), "+
		"then read with workload C (one run to warm the caches, a second measured); "+
		"growth is relative to the first scale.\n\n", chunk, scaleThreads)
	b.WriteString("| records | insert server core-µs/op | inserts/s | quiet after s | read server core-µs/op | reads/s | read cost growth | RSS MB | disk MB |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var first float64
	for _, e := range scale {
		if e.Skipped != "" {
			fmt.Fprintf(&b, "| %d | skipped: %s | | | | | | | |\n", e.Records, e.Skipped)
			continue
		}
		growth := "1.00x"
		if first == 0 {
			first = e.ReadCPUPerOp
		} else if first > 0 {
			growth = fmt.Sprintf("%.2fx", e.ReadCPUPerOp/first)
		}
		fmt.Fprintf(&b, "| %d | %.1f | %.0f | %.1f | %.1f | %.0f | %s | %d | %.0f |\n", e.Records, e.InsertCPUPerOp,
			e.InsertOpsPerSec, e.SettleSeconds, e.ReadCPUPerOp, e.ReadOpsPerSec, growth, e.RSSMB, e.DiskMB)
	}
	return b.String()
}

func notOK(o bench.OpSummary) int64 {
	var n int64
	for st, c := range o.Returns {
		if !st.OK() {
			n += c
		}
	}
	return n
}

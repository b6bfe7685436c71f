package experiment

import (
	"fmt"
	"strings"
	"time"
)

// Markdown renders r as bench/results/chaining.md.
func Markdown(r *Report) string {
	var b strings.Builder
	cfg := r.Config
	fmt.Fprintf(&b, "# Chained replication: relaydb next to the reference (issue #5)\n\n")
	fmt.Fprintf(&b, "Command: `%s` (took %s)\n\n", r.Command, (time.Duration(r.DurationSecs) * time.Second).String())
	writeMachine(&b, r.Machine)
	fmt.Fprintf(&b, "Each cell: YCSB load (100%% inserts, 10 fields × 100 bytes), %d threads, %d records, "+
		"%d run(s), reported as median (min-max). One fresh cluster per (latency, nodes, chaining mode), "+
		"reused across w and runs, the modes' order rotating by one per topology; before each run the table is dropped and every member has caught up "+
		"with the primary. Client, primary and all members share the machine's cores. Primary CPU is "+
		"serverStatus extra_info user+system time over wall time (100%% = one core); replication lag is "+
		"the primary's optime minus the slowest member's (one-second resolution), polled every %v. "+
		"Entries behind by depth: at each poll, how many oplog entries each member's acknowledged optime (as the "+
		"primary sees it, what a write concern waits for) trailed the primary's newest write, by the member's "+
		"sync-source depth (1 = pulls from the primary); mean and max over the polls in the same second as the primary.\n\n",
		cfg.Threads, cfg.RecordCount, cfg.Runs, cfg.PollInterval)
	if cfg.Warmup > 0 {
		fmt.Fprintf(&b, "Warm-up: before each measured run, the same load (same w and threads) into table "+
			"\"warmup\" for %v, then the catch-up wait, in every mode alike: each cell measures the "+
			"topology its mode settles on for that write concern, not the one the previous run left.\n\n", cfg.Warmup)
	}
	fmt.Fprintf(&b, "Network distance: %s\n\n", r.LatencyMethod)
	fmt.Fprintf(&b, "The reference: MongoDB 5.0, 4-core primary, 5,000,000 records, client RTT 0.1 ms over a real network; compare shapes and the off/on ratio, not raw numbers.\n\n")
	for _, lat := range cfg.Latencies {
		writeMain(&b, r, lat.Microseconds())
		writeDetail(&b, r, lat.Microseconds())
	}
	writeGoal(&b, r.Goal)
	writeList(&b, "Errors", r.Errors)
	writeList(&b, "Warnings", r.Warnings)
	return b.String()
}

func writeMachine(b *strings.Builder, m Machine) {
	b.WriteString("| machine | |\n|---|---|\n")
	for _, kv := range [][2]string{{"date", m.Date}, {"cores", fmt.Sprint(m.Cores)}, {"cpu", m.CPUModel},
		{"memory", fmt.Sprintf("%d MB", m.MemoryMB)}, {"os", strings.TrimSpace(m.OS + " " + m.Kernel)},
		{"go", m.GoVersion}, {"commit", m.Commit}} {
		fmt.Fprintf(b, "| %s | %s |\n", kv[0], kv[1])
	}
	b.WriteString("\n")
}

// rowKeys lists (nodes, w) in the configured order.
func rowKeys(cfg Config) [][2]string {
	var out [][2]string
	for _, n := range cfg.Nodes {
		for _, w := range cfg.W {
			out = append(out, [2]string{fmt.Sprint(n), w})
		}
	}
	return out
}

func writeMain(b *strings.Builder, r *Report, lat int64) {
	cfg := r.Config
	fmt.Fprintf(b, "## Throughput (ops/s) and primary CPU, %s\n\n", latencyLabel(lat))
	b.WriteString("| nodes | w |")
	for _, m := range cfg.Modes {
		fmt.Fprintf(b, " chaining %s |", m)
	}
	for _, m := range cfg.Modes {
		fmt.Fprintf(b, " CPU %s |", m)
	}
	b.WriteString(" off/on | ref on | ref off | ref CPU on | ref CPU off | ref off/on |\n|---|---|")
	b.WriteString(strings.Repeat("---:|", 2*len(cfg.Modes)+6) + "\n")
	for _, nw := range rowKeys(cfg) {
		var nodes int
		fmt.Sscan(nw[0], &nodes)
		fmt.Fprintf(b, "| %d | %s |", nodes, nw[1])
		cells := make([]*Cell, len(cfg.Modes))
		for i, m := range cfg.Modes {
			cells[i] = r.cell(Key{lat, nodes, nw[1], m})
			fmt.Fprintf(b, " %s |", statCell(cells[i], func(c *Cell) Stat { return c.Throughput }, "%.0f"))
		}
		for _, c := range cells {
			fmt.Fprintf(b, " %s |", cpuCell(c))
		}
		fmt.Fprintf(b, " %s |", ratio(medianOf(r.cell(Key{lat, nodes, nw[1], ModeOff})), medianOf(r.cell(Key{lat, nodes, nw[1], ModeOn}))))
		writeRef(b, nodes, nw[1])
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

func writeRef(b *strings.Builder, nodes int, w string) {
	on, okOn := Reference(nodes, w, ModeOn)
	off, okOff := Reference(nodes, w, ModeOff)
	if !okOn || !okOff {
		b.WriteString(" - | - | - | - | - |")
		return
	}
	fmt.Fprintf(b, " %.0f | %.0f | %.0f%% | %.0f%% | %s |", on.OpsPerSec, off.OpsPerSec, on.CPUPercent, off.CPUPercent,
		ratio(off.OpsPerSec, on.OpsPerSec))
}

func medianOf(c *Cell) float64 {
	if c == nil || len(c.Runs) == 0 {
		return 0
	}
	return c.Throughput.Median
}

func ratio(a, b float64) string {
	if a == 0 || b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", a/b)
}

// statCell prints "median (min-max)", or the median alone for one run.
func statCell(c *Cell, f func(*Cell) Stat, format string) string {
	if c == nil || len(c.Runs) == 0 {
		return "-"
	}
	s := f(c)
	if len(c.Runs) == 1 {
		return fmt.Sprintf(format, s.Median)
	}
	return fmt.Sprintf(format+" ("+format+"-"+format+")", s.Median, s.Min, s.Max)
}

func cpuCell(c *Cell) string {
	if c == nil || len(c.Runs) == 0 || !c.Runs[0].CPUKnown {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", c.PrimaryCPU.Median)
}

func writeDetail(b *strings.Builder, r *Report, lat int64) {
	fmt.Fprintf(b, "### Per cell, %s\n\n", latencyLabel(lat))
	b.WriteString("| nodes | w | chaining | ops/s | avg insert µs | p99 insert µs | primary CPU | primary core-µs/op | max lag s | polls behind | entries behind by depth: mean (max) | failed inserts | sync-source tree (trees seen) |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|\n")
	for _, c := range r.Cells {
		if c.LatencyUs != lat {
			continue
		}
		behind, polls := 0, 0
		for _, run := range c.Runs {
			behind += run.Lag.Behind
			polls += run.Lag.Samples
		}
		fmt.Fprintf(b, "| %d | %s | %s | %s | %s | %s | %s | %s | %.0f | %d/%d | %s | %d | %s (%d) |\n",
			c.Nodes, c.W, c.Mode,
			statCell(c, func(c *Cell) Stat { return c.Throughput }, "%.0f"),
			statCell(c, func(c *Cell) Stat { return c.AvgInsertUs }, "%.0f"),
			statCell(c, func(c *Cell) Stat { return c.P99InsertUs }, "%.0f"),
			cpuCell(c),
			statCell(c, func(c *Cell) Stat { return c.CPUPerOpUs }, "%.1f"),
			c.MaxLagSecs, behind, polls, depthCell(c.LagByDepth), c.Failed, orDash(c.Tree), len(c.Trees))
	}
	b.WriteString("\n")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return "`" + s + "`"
}

func writeGoal(b *strings.Builder, rows []GoalRow) {
	b.WriteString("## Goal check (issue #5 item 4)\n\n")
	b.WriteString("auto's median throughput ≥ max(on, off) and auto's primary core-µs/op ≤ on's, each within the larger half-range (max-min)/2 of the two cells compared.\n\n")
	b.WriteString("| latency | nodes | w | throughput | CPU/op | numbers |\n|---|---|---|---|---|---|\n")
	for _, g := range rows {
		fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s |\n", time.Duration(g.LatencyUs)*time.Microsecond,
			g.Nodes, g.W, g.Throughput, g.CPU, g.Detail)
	}
	b.WriteString("\n")
}

func writeList(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "## %s\n\n", title)
	for _, e := range items {
		fmt.Fprintf(b, "- %s\n", e)
	}
	b.WriteString("\n")
}

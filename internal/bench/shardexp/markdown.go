package shardexp

import (
	"fmt"
	"strings"
	"time"
)

// Markdown renders r as bench/results/NAME.md.
func Markdown(r *Report) string {
	var b strings.Builder
	cfg := r.Config
	b.WriteString("# Sharded YCSB through routers: relaydb next to the reference (issue #12)\n\n")
	fmt.Fprintf(&b, "Command: `%s` (took %s)\n\n", r.Command, (time.Duration(r.DurationSecs) * time.Second).String())
	if r.Note != "" {
		fmt.Fprintf(&b, "Note: %s\n\n", r.Note)
	}
	writeMachine(&b, r)
	fmt.Fprintf(&b, "Each cell: YCSB workload A (50%% read / 50%% update) or B (95/5), zipfian, readallfields=true, "+
		"10 fields × 100 bytes, %s per run, %d run(s) (median), through %d router(s) with one YCSB client per router "+
		"(threads split evenly), as the reference ran one client per mongos. Throughput is the clients' sum; latency "+
		"the average over all operations (the reference averaged the clients' averages). Every cluster (3 config "+
		"servers, the shards, the routers, and the clients) shares this machine's %d cores. usertable is sharded on "+
		"{_id: \"hashed\"} (2 chunks per shard) before a load with w:1 j:true (w:\"majority\" on replicated shards), "+
		"the balancer stopped; the cells of a cluster then run on that data, w:0 last, runs interleaved, each "+
		"after a w:\"majority\" write on every shard primary (no replication backlog carried over); %s.\n\n", cellLength(cfg), cfg.Runs, cfg.Routers, r.Machine.Cores, warmupText(cfg.Warmup))
	b.WriteString("**Compare shapes and ratios, not absolute numbers**: the reference (MongoDB 3.4 on four 20-core " +
		"hosts with all-flash vSAN, 100M records ≈ 128 GB, 128 threads over 4 clients, 25M operations per cell) " +
		"measured a disk- and cache-bound system on separate machines per shard; here every process shares " +
		"the same cores and the data fits in memory, so adding shards adds processes, not capacity.\n\n")
	writeClusters(&b, r)
	for _, s := range AllSeries {
		if cfg.Has(s) {
			writeSeries(&b, r, s)
		}
	}
	writeChecks(&b, r.Checks)
	if len(r.Warnings) > 0 {
		b.WriteString("## Warnings\n\n")
		for _, w := range r.Warnings {
			fmt.Fprintf(&b, "- %s\n", w)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func cellLength(cfg Config) string {
	switch {
	case cfg.Operations > 0 && cfg.Duration > 0:
		return fmt.Sprintf("%d operations or %v, whichever comes first,", cfg.Operations, cfg.Duration)
	case cfg.Operations > 0:
		return fmt.Sprintf("%d operations", cfg.Operations)
	}
	return cfg.Duration.String()
}

func writeMachine(b *strings.Builder, r *Report) {
	m := r.Machine
	b.WriteString("| machine | |\n|---|---|\n")
	for _, kv := range [][2]string{{"date", m.Date}, {"cores", fmt.Sprint(m.Cores)}, {"cpu", m.CPUModel},
		{"memory", fmt.Sprintf("%d MB", m.MemoryMB)}, {"os", strings.TrimSpace(m.OS + " " + m.Kernel)},
		{"go", m.GoVersion}, {"commit", m.Commit}} {
		fmt.Fprintf(b, "| %s | %s |\n", kv[0], kv[1])
	}
	b.WriteString("\n")
}

func writeClusters(b *strings.Builder, r *Report) {
	b.WriteString("## Clusters\n\n| shards | shard members | records | threads | start s | load ops/s | load failed | documents per shard | balancer |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range r.Clusters {
		docs := make([]string, len(c.DocsPerShard))
		for i, n := range c.DocsPerShard {
			docs[i] = fmt.Sprint(n)
		}
		fmt.Fprintf(b, "| %d | %s | %d | %d | %.1f | %.0f | %d | %s | %s |\n", c.Shards, MembersLabel(c.Members),
			c.Records, c.Threads, c.StartSecs, c.LoadOpsSec, c.LoadFailed, strings.Join(docs, " / "), c.Balancer)
	}
	b.WriteString("\n")
}

// seriesTitle and the per-series column that varies.
var seriesTitle = map[string]string{
	SeriesBaseline:   "Baseline (w:1 j:true, single-member shards)",
	SeriesDurability: "Durability options (single-member shards)",
	SeriesTopology:   "Shards as one member (rs=1) or primary + secondary + arbiter (rs=3)",
	SeriesScaleout:   "Scale-out (records and threads scaled with shards, w:1 j:true)",
}

func writeSeries(b *strings.Builder, r *Report, s string) {
	fmt.Fprintf(b, "## %s\n\n", seriesTitle[s])
	b.WriteString("| workload | shards | shards as | durability | records | threads | ops/s | read avg ms | read p99 ms | update avg ms | update p99 ms | failed ops | reference |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, k := range r.Config.SeriesKeys(s) {
		c := r.Cell(k)
		if c == nil {
			continue
		}
		m := c.Median
		if len(c.Runs) == 0 {
			fmt.Fprintf(b, "| %s | %d | %s | %s | %d | %d | not run | | | | | | %s |\n", strings.ToUpper(k.Workload),
				k.Shards, MembersLabel(k.Members), DurabilityLabel(k.Durability), c.Records, c.Threads, refText(s, k, r.Config))
			continue
		}
		fmt.Fprintf(b, "| %s | %d | %s | %s | %d | %d | %.0f | %s | %s | %s | %s | %d | %s |\n",
			strings.ToUpper(k.Workload), k.Shards, MembersLabel(k.Members), DurabilityLabel(k.Durability), c.Records,
			c.Threads, m.Throughput, ms(m.ReadAvgUs), ms(float64(m.ReadP99Us)), ms(m.UpdateAvgUs),
			ms(float64(m.UpdateP99Us)), m.Failed, refText(s, k, r.Config))
	}
	b.WriteString("\n")
}

// refText is the reference's figure for a cell, where it printed one.
func refText(s string, k Key, cfg Config) string {
	switch {
	case s == SeriesBaseline:
		if rb, ok := RefBaselines[k.Workload]; ok {
			return fmt.Sprintf("%s ops/s, read %.2f ms, update %.1f ms (4 shards)", thousands(rb.OpsPerSec), rb.ReadMs, rb.UpdateMs)
		}
	case s == SeriesDurability && k.Durability == DurW0 && k.Workload == "a":
		return fmt.Sprintf("update %.3f ms", RefW0UpdateMs)
	case s == SeriesScaleout:
		ref, ok := RefScaleoutUpdateMs[k.Workload]
		switch {
		case ok && k.Shards == 2:
			return fmt.Sprintf("update %.1f ms (2 shards)", ref[0])
		case ok && k.Shards == 8:
			return fmt.Sprintf("update %.1f ms (8 shards)", ref[1])
		}
	}
	return ""
}

func writeChecks(b *strings.Builder, checks []Check) {
	if len(checks) == 0 {
		return
	}
	b.WriteString("## Shapes and ratios: the reference's next to ours\n\n")
	b.WriteString("| series | ratio | reference | ours | same shape |\n|---|---|---|---|---|\n")
	held, known := 0, 0
	for _, c := range checks {
		ours, same := "not run", "—"
		if c.Known {
			known++
			ours, same = fmt.Sprintf("%.3g", c.Ours), "no"
			if c.Holds {
				held++
				same = "yes"
			}
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", c.Series, c.Figure, c.Reference, ours, same)
	}
	fmt.Fprintf(b, "\n%d of %d measured ratios go the reference's way.\n\n", held, known)
}

func ms(us float64) string {
	if us <= 0 {
		return "-"
	}
	if us < 100 {
		return fmt.Sprintf("%.3f", us/1000)
	}
	return fmt.Sprintf("%.2f", us/1000)
}

func thousands(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func warmupText(d time.Duration) string {
	if d <= 0 {
		return "no warm-up"
	}
	return fmt.Sprintf("before its first cell every cluster ran workload A unmeasured for %v", d)
}

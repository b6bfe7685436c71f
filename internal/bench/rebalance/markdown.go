package rebalance

import (
	"fmt"
	"sort"
	"strings"
)

// Markdown renders the report. Pure.
func Markdown(r *Report) string {
	var b strings.Builder
	c := r.Config
	fmt.Fprintf(&b, "# Rebalancing speed and impact (issue #12 item 6)\n\n")
	fmt.Fprintf(&b, "Command: `%s`\n\n", r.Command)
	if r.Note != "" {
		fmt.Fprintf(&b, "%s\n\n", r.Note)
	}
	m := r.Machine
	fmt.Fprintf(&b, "Machine: %d cores %s, %d MB, %s, %s, commit %s, %s; took %.0f s.\n\n",
		m.Cores, m.CPUModel, m.MemoryMB, m.OS, m.GoVersion, m.Commit, m.Date, r.DurationSecs)
	fmt.Fprintf(&b, "Setup: %d shards of %d member(s), %d config server(s), %d router(s); %d YCSB records in ycsb.usertable "+
		"sharded on {_id: \"hashed\"} with %d chunks per shard; config.settings chunksize %d MB; balancerRoundIntervalMS %d. "+
		"Workload %s, %d threads over the routers, throttled to %.0f%% of the throughput of a %v unthrottled probe. "+
		"Phases: before %v; during = the shard(s) added (as `relaydb cluster add-shard`) until balancerCollectionStatus "+
		"says balancerCompliant for %v (bounded by %v); after %v (starting after that quiet wait). "+
		"Migrations: the donors' \"migration finished\" log lines (clonedBytes, took). %d run(s) per case, medians.\n\n",
		c.Shards, c.ShardMembers, c.ConfigMembers, c.Routers, c.Records, c.ChunksPerShard, c.ChunkSizeMB,
		c.RoundInterval.Milliseconds(), strings.ToUpper(c.Workload), c.Threads, c.Fraction*100, c.Probe, c.Before, c.Quiet,
		c.MaxDuring, c.After, c.Runs)
	b.WriteString("## Summary (medians over runs)\n\n")
	b.WriteString("| case | runs | p99 before ms | p99 during ms | p99 during / before | goal <= 2x | during s | migrations | MB moved | MB/s (total) | MB/s (migrations' span) | MB/s per migration (median) |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, k := range r.Cases {
		md := k.Median
		fmt.Fprintf(&b, "| %d -> %d shards | %d | %.2f | %.2f | %.2f | %s | %.1f | %.0f | %.1f | %.2f | %.2f | %.2f |\n",
			k.From, k.From+k.Add, md.Runs, md.Phases[PhaseBefore].AllP99, md.Phases[PhaseDuring].AllP99, md.P99Ratio,
			goal(md), md.DuringSecs, md.Migrations, md.MovedMB, md.MBPerSec, md.ActiveMBSec, md.PerMigMB)
	}
	b.WriteString("\nMB/s (total) is the bytes cloned by the migrations that ended in the during phase over its whole length " +
		"(starting and adding the shard included); MB/s (migrations' span) is the same bytes over the first migration's start " +
		"to the last one's end; per migration is each migration's clonedBytes over its time on the donor. MB = 10^6 bytes.\n")
	b.WriteString("\nWhere the time goes (medians):")
	for _, k := range r.Cases {
		fmt.Fprintf(&b, " %d -> %d: a migration takes %.0f ms on its donor, and the span holds one every %.2f s;",
			k.From, k.From+k.Add, k.Median.TookMs, k.Median.SpanPerMig)
	}
	fmt.Fprintf(&b, " the balancer runs at most one migration per shard per round and sleeps balancerRoundIntervalMS (%d ms here) "+
		"between rounds.\n", c.RoundInterval.Milliseconds())
	b.WriteString("\nThe ratio is over all successful operations; reads alone, updates alone, and all operations that " +
		"started while ranges were moving (the migrations' span, without the shard's start):")
	for _, k := range r.Cases {
		fmt.Fprintf(&b, " %d -> %d: reads x%.2f, updates x%.2f, while migrating x%.2f;", k.From, k.From+k.Add,
			k.Median.ReadRatio, k.Median.UpdateRatio, k.Median.MigRatio)
	}
	b.WriteString("\n\n## Per phase (medians over runs)\n\n")
	b.WriteString("| case | phase | ops/s | failed | read p50 / p95 / p99 / max ms | update p50 / p95 / p99 / max ms |\n|---|---|---|---|---|---|\n")
	for _, k := range r.Cases {
		for _, name := range []string{PhaseBefore, PhaseDuring, PhaseAfter} {
			p := k.Median.Phases[name]
			fmt.Fprintf(&b, "| %d -> %d | %s | %.0f | %.0f | %.2f / %.2f / %.2f / %.1f | %.2f / %.2f / %.2f / %.1f |\n",
				k.From, k.From+k.Add, name, p.OpsSec, p.Failed, p.ReadP50, p.ReadP95, p.ReadP99, p.ReadMax,
				p.UpP50, p.UpP95, p.UpP99, p.UpMax)
		}
	}
	b.WriteString("\n## Runs\n\n")
	b.WriteString("| case | run | probe ops/s | target ops/s | p99 before / during / after ms (while migrating) | ratio | failed before / during / after | during s (adding shards) | migrations (max at once) | MB moved | MB/s | MB/s per migration min / median / max | chunks before -> after |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, k := range r.Cases {
		for _, x := range k.Runs {
			b.WriteString(runRow(k, x))
		}
	}
	for _, k := range r.Cases {
		for _, x := range k.Runs {
			if x.Error != "" || len(x.ErrorSample) > 0 || x.TimedOut {
				fmt.Fprintf(&b, "\n%d -> %d run %d: error %q; timed out %v; client errors: %s\n", k.From, k.From+k.Add, x.N,
					x.Error, x.TimedOut, strings.Join(x.ErrorSample, " | "))
			}
		}
	}
	return b.String()
}

func goal(m CaseMedian) string {
	switch {
	case m.Runs == 0:
		return "no run"
	case m.GoalMet:
		return "met"
	}
	return "MISSED"
}

func runRow(k Case, x Run) string {
	b, d, a := x.Stats(PhaseBefore), x.Stats(PhaseDuring), x.Stats(PhaseAfter)
	mv := x.Moves
	return fmt.Sprintf("| %d -> %d | %d | %.0f | %.0f | %.2f / %.2f / %.2f (%.2f) | %.2f | %d / %d / %d | %.1f (%.1f)%s | %d (%d) | %.1f | %.2f | %.2f / %.2f / %.2f | %v -> %v |\n",
		k.From, k.From+k.Add, x.N, x.ProbeOpsSec, x.TargetOpsSec, b.All.P99, d.All.P99, a.All.P99, x.Migrating.All.P99, x.P99Ratio(),
		b.Failed, d.Failed, a.Failed, d.Secs, x.AddSecs, map[bool]string{true: " (timed out)"}[x.TimedOut], mv.Count, mv.MaxParallel,
		float64(mv.Bytes)/MB, mv.MBPerSec, mv.PerMigMinMB, mv.PerMigMedMB, mv.PerMigMaxMB, chunkText(x.ChunksBefore), chunkText(x.ChunksAfter))
}

// chunkText is "sh0:8 sh1:8", by shard name.
func chunkText(m map[string]int) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		names[i] = fmt.Sprintf("%s:%d", n, m[n])
	}
	return strings.Join(names, " ")
}

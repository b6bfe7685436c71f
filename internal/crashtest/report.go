package crashtest

import (
	"fmt"
	"strings"
)

// Summary is the counts of results: per command, the acknowledged ops
// checked in each topology, and the trials and kill modes.
func Summary(results ...*Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-18s", "command")
	for _, r := range results {
		fmt.Fprintf(&b, " %14s", r.Topology)
	}
	b.WriteString("\n")
	for _, k := range Kinds {
		fmt.Fprintf(&b, "%-18s", k)
		for _, r := range results {
			fmt.Fprintf(&b, " %14d", r.Stream.Acked[k])
		}
		b.WriteString("\n")
	}
	covered, total, checked, unsure := 0, 0, 0, 0
	for _, r := range results {
		for _, k := range Kinds {
			total++
			if r.Stream.Acked[k] > 0 {
				covered++
			}
		}
		checked += r.Stream.TotalAcked()
		unsure += r.Stream.Unsure
		fmt.Fprintf(&b, "%s: %d trials, kill modes %v, %d ops sent, %d in flight at a kill, %d checks failed\n",
			r.Topology, r.Trials, r.Modes, r.Stream.Sent, r.Stream.Unsure, r.Stream.Lost)
	}
	fmt.Fprintf(&b, "%d commands x %s trials x %d topologies: %d of %d (command, topology) pairs acknowledged at least once; %d acknowledged ops checked, %d in-flight ops allowed either way\n",
		len(Kinds), trialList(results), len(results), covered, total, checked, unsure)
	return b.String()
}

func trialList(results []*Result) string {
	parts := make([]string, len(results))
	for i, r := range results {
		parts[i] = fmt.Sprint(r.Trials)
	}
	return strings.Join(parts, "/")
}

package rebalance

import (
	"fmt"

	"github.com/relaydb/relaydb/internal/bench/svg"
)

// Chart is the per-second p99 of reads and updates of a case's first
// run that has phases, with the phases named under the x axis at their
// starts. Pure; "" when there is none.
func Chart(k Case) string {
	for _, r := range k.Runs {
		if len(r.Phases) != 3 || len(r.Timeline.Read) == 0 {
			continue
		}
		n := len(r.Timeline.Read)
		x := make([]string, n)
		for _, p := range r.Phases {
			if i := int(p.Phase.StartSecs); i < n {
				x[i] = p.Phase.Name
			}
		}
		title := fmt.Sprintf("p99 latency per second, %d -> %d shards, run %d", k.From, k.From+k.Add, r.N)
		return svg.Line(title, "seconds (phase starts marked)", "ms", x,
			[]svg.Series{{Name: "read p99", Values: r.Timeline.Read}, {Name: "update p99", Values: r.Timeline.Update}})
	}
	return ""
}

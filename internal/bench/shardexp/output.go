package shardexp

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/relaydb/relaydb/internal/bench/experiment"
	"github.com/relaydb/relaydb/internal/bench/svg"
)

// Chart is the throughput bar chart: one group per row of the series
// tables (each cell once, in series order), one bar per workload.
func Chart(r *Report) string {
	cfg := r.Config
	series := make([]svg.Series, len(cfg.Workloads))
	for i, w := range cfg.Workloads {
		series[i].Name = "workload " + strings.ToUpper(w)
	}
	var groups []string
	seen := map[string]bool{}
	for _, s := range AllSeries {
		if !cfg.Has(s) {
			continue
		}
		for _, k := range cfg.SeriesKeys(s) {
			label := groupLabel(k)
			if seen[label] {
				continue
			}
			seen[label] = true
			groups = append(groups, label)
			for i, w := range cfg.Workloads {
				v := 0.0
				kw := k
				kw.Workload = w
				if c := r.Cell(kw); c != nil {
					v = c.Median.Throughput
				}
				series[i].Values = append(series[i].Values, v)
			}
		}
	}
	title := fmt.Sprintf("YCSB A and B through %d router(s), %s per cell: throughput", cfg.Routers, cellLength(cfg))
	return svg.Bars(title, "ops/s", groups, series)
}

// groupLabel names a cell's chart group: shards, members, durability.
func groupLabel(k Key) string {
	return fmt.Sprintf("%d sh rs=%d %s", k.Shards, k.Members, DurabilityLabel(k.Durability))
}

// Write writes NAME.md, NAME.json and NAME.svg into dir and returns
// their paths.
func Write(r *Report, dir, name string) ([]string, error) {
	paths, err := experiment.WriteResults(dir, name, Markdown(r), r, experiment.File{Suffix: ".svg", Body: Chart(r)})
	if err != nil {
		return paths, fmt.Errorf("shardexp: %w", err)
	}
	return paths, nil
}

// ReadReport reads a report Write wrote.
func ReadReport(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("shardexp: %w", err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("shardexp: decode %s: %w", path, err)
	}
	return &r, nil
}

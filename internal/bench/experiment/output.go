package experiment

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/relaydb/relaydb/internal/bench/svg"
)

// Chart is the throughput bar chart: one group per (latency, nodes, w),
// one bar per chaining mode (the median).
func Chart(r *Report) string {
	cfg := r.Config
	var groups []string
	series := make([]svg.Series, len(cfg.Modes))
	for i, m := range cfg.Modes {
		series[i].Name = "chaining " + m
	}
	for _, lat := range cfg.Latencies {
		for _, nw := range rowKeys(cfg) {
			label := nw[0] + " nodes w:" + nw[1]
			if len(cfg.Latencies) > 1 {
				label += " " + lat.String()
			}
			groups = append(groups, label)
			var nodes int
			fmt.Sscan(nw[0], &nodes)
			for i, m := range cfg.Modes {
				series[i].Values = append(series[i].Values, medianOf(r.cell(Key{lat.Microseconds(), nodes, nw[1], m})))
			}
		}
	}
	title := fmt.Sprintf("YCSB load, %d threads, %d records: median throughput", cfg.Threads, cfg.RecordCount)
	return svg.Bars(title, "ops/s", groups, series)
}

// Write writes NAME.md, NAME.json and NAME-throughput.svg into dir and
// returns their paths.
func Write(r *Report, dir, name string) ([]string, error) {
	paths, err := WriteResults(dir, name, Markdown(r), r, File{Suffix: "-throughput.svg", Body: Chart(r)})
	if err != nil {
		return paths, fmt.Errorf("experiment: %w", err)
	}
	return paths, nil
}

// MarshalJSON keeps Config readable in JSON: durations as strings.
func (c Config) MarshalJSON() ([]byte, error) {
	type plain Config
	lat := make([]string, len(c.Latencies))
	for i, l := range c.Latencies {
		lat[i] = l.String()
	}
	return json.Marshal(struct {
		plain
		Latencies      []string `json:"Latencies"`
		QuiesceTimeout string   `json:"QuiesceTimeout"`
		PollInterval   string   `json:"PollInterval"`
	}{plain(c), lat, c.QuiesceTimeout.String(), c.PollInterval.String()})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (c *Config) UnmarshalJSON(b []byte) error {
	type plain Config
	var v struct {
		plain
		Latencies      []string `json:"Latencies"`
		QuiesceTimeout string   `json:"QuiesceTimeout"`
		PollInterval   string   `json:"PollInterval"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*c = Config(v.plain)
	c.Latencies = nil
	for _, l := range v.Latencies {
		d, err := time.ParseDuration(l)
		if err != nil {
			return fmt.Errorf("config latency %q: %w", l, err)
		}
		c.Latencies = append(c.Latencies, d)
	}
	var err error
	if c.QuiesceTimeout, err = parseOptDuration(v.QuiesceTimeout); err == nil {
		c.PollInterval, err = parseOptDuration(v.PollInterval)
	}
	return err
}

func parseOptDuration(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	return time.ParseDuration(s)
}

package experiment

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// Report is everything one experiment invocation produced; chaining.json
// is its JSON form and chaining.md is rendered from it.
type Report struct {
	Experiment    string    `json:"experiment"`
	Command       string    `json:"command"`
	Machine       Machine   `json:"machine"`
	Config        Config    `json:"config"`
	LatencyMethod string    `json:"latencyMethod"`
	DurationSecs  float64   `json:"durationSecs"`
	Cells         []*Cell   `json:"cells"`
	Goal          []GoalRow `json:"goal"`
	Errors        []string  `json:"errors,omitempty"`
	// Warnings are runs that started before the set settled (members
	// behind or without a sync source after Config.QuiesceTimeout).
	Warnings []string `json:"warnings,omitempty"`
}

// NewReport assembles a report from finished cells.
func NewReport(cfg Config, command string, m Machine, cells []*Cell, took time.Duration) *Report {
	cfg = cfg.WithDefaults()
	r := &Report{Experiment: "chaining", Command: command, Machine: m, Config: cfg,
		LatencyMethod: LatencyMethod(cfg.Spread), DurationSecs: took.Seconds(), Cells: cells,
		Goal: CheckGoal(cells)}
	for _, c := range cells {
		if c.Error != "" {
			r.Errors = append(r.Errors, fmt.Sprintf("%v: %s", c.Key, c.Error))
		}
		for _, run := range c.Runs {
			if run.QuiesceError != "" {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%v run %d started unsettled: %s", c.Key, run.Run, run.QuiesceError))
			}
		}
	}
	return r
}

// LatencyMethod says how network distance was emulated.
func LatencyMethod(spread bool) string {
	s := "simulated in relaydb's node-to-node transport (serve --simulatedLatency): netem is unavailable on this machine (the kernel lacks sch_netem). "
	if spread {
		return s + "Spread: members sit in three zones (mN in zone N mod 3); a message costs the base one-way delay within a zone and base × (1 + zone distance) across zones, set per peer with --simulatedLatencyTo, so RTTs differ pair by pair."
	}
	return s + "Uniform: every member-to-member message is delayed by the base one-way latency."
}

// cell finds the cell of a key, or nil.
func (r *Report) cell(k Key) *Cell {
	for _, c := range r.Cells {
		if c.Key == k {
			return c
		}
	}
	return nil
}

// ReadReport loads a report written by Write (NAME.json), so the
// markdown and chart can be rendered again without rerunning.
func ReadReport(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("experiment: decode %s: %w", path, err)
	}
	return &r, nil
}

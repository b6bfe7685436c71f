package shardexp

import (
	"fmt"
	"strings"
	"time"

	"github.com/relaydb/relaydb/internal/bench/experiment"
)

// ClusterResult is what one cluster's setup and load gave.
type ClusterResult struct {
	Topology
	StartSecs    float64 `json:"startSecs"`
	StartRetried string  `json:"startRetried,omitempty"` // why the first start failed, when it did
	Balancer     string  `json:"balancer"`               // "stopped", or why balancerStop failed
	LoadOps      int64   `json:"loadOps"`                // inserts acknowledged
	LoadFailed   int64   `json:"loadFailed"`             // inserts that failed
	LoadOpsSec   float64 `json:"loadOpsPerSec"`
	DocsPerShard []int64 `json:"docsPerShard"` // counted on each shard's primary after the load
	WarmupError  string  `json:"warmupError,omitempty"`
	SettleFailed int     `json:"settleFailed,omitempty"` // settle writes before a cell that failed
	SettleError  string  `json:"settleError,omitempty"`  // the last one's message
	Error        string  `json:"error,omitempty"`
	// ErrorSample is the first failed inserts' messages.
	ErrorSample []string `json:"errorSample,omitempty"`
}

// Report is the whole experiment.
type Report struct {
	Command      string             `json:"command"`
	Note         string             `json:"note,omitempty"` // --note: the conditions of the run
	Machine      experiment.Machine `json:"machine"`
	Config       Config             `json:"config"`
	DurationSecs float64            `json:"durationSecs"`
	Clusters     []ClusterResult    `json:"clusters"`
	Cells        []*Cell            `json:"cells"`
	Checks       []Check            `json:"checks"`
	Warnings     []string           `json:"warnings,omitempty"`
}

// NewReport assembles a report and derives its checks and warnings.
func NewReport(cfg Config, command string, m experiment.Machine, clusters []ClusterResult, cells []*Cell,
	took time.Duration) *Report {
	r := &Report{Command: command, Machine: m, Config: cfg, DurationSecs: took.Seconds(), Clusters: clusters, Cells: cells}
	r.Checks = Checks(cfg, r.Cell)
	r.Warnings = Warnings(clusters, cells)
	return r
}

// Cell returns the cell of k, or nil.
func (r *Report) Cell(k Key) *Cell {
	for _, c := range r.Cells {
		if c.Key == k {
			return c
		}
	}
	return nil
}

// Warnings lists what a reader must not miss: failed clusters, loads
// and cells, failed operations, shards that got no documents.
func Warnings(clusters []ClusterResult, cells []*Cell) []string {
	var out []string
	for _, c := range clusters {
		if c.Error != "" {
			out = append(out, fmt.Sprintf("%v: %s", c.Topology, c.Error))
		}
		if c.LoadFailed > 0 {
			out = append(out, fmt.Sprintf("%v: %d of %d inserts failed in the load%s", c.Topology, c.LoadFailed,
				c.Records, sampleText(c.ErrorSample)))
		}
		if c.StartRetried != "" {
			out = append(out, fmt.Sprintf("%v: the first start failed (%s); the second one ran the cells", c.Topology, c.StartRetried))
		}
		if c.WarmupError != "" {
			out = append(out, fmt.Sprintf("%v: warm-up: %s", c.Topology, c.WarmupError))
		}
		if c.SettleFailed > 0 {
			out = append(out, fmt.Sprintf("%v: %d settle writes failed (last: %s); those cells may have started "+
				"with a replication backlog", c.Topology, c.SettleFailed, c.SettleError))
		}
		for i, n := range c.DocsPerShard {
			if n == 0 {
				out = append(out, fmt.Sprintf("%v: shard sh%d holds no documents after the load", c.Topology, i))
			}
		}
		if c.Balancer != "" && c.Balancer != "stopped" {
			out = append(out, fmt.Sprintf("%v: balancer not stopped (%s); chunks may have moved during the cells", c.Topology, c.Balancer))
		}
	}
	for _, c := range cells {
		if c.Error != "" {
			out = append(out, fmt.Sprintf("%v: %s", c.Key, c.Error))
		}
		if c.Median.Failed > 0 {
			out = append(out, fmt.Sprintf("%v: %d operations failed%s", c.Key, c.Median.Failed, sampleText(c.ErrorSample)))
		}
	}
	return out
}

// sampleText is ", e.g. `first message`" or "".
func sampleText(sample []string) string {
	if len(sample) == 0 {
		return ""
	}
	return fmt.Sprintf(", e.g. `%s`", strings.ReplaceAll(sample[0], "`", "'"))
}

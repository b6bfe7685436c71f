package shardfailover

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/relaydb/relaydb/internal/bench/failover"
)

// goalMs is the target for the median interruption with a
// replica-set shard.
const goalMs = 2000

// The reference's figures (shared/docs/reference-experiments.md §3).
const (
	refReplicaSet = "resumed in under 10 s"
	refSingle     = "about 120 s until restarted elsewhere"
)

// Trial is one kill -9 of a shard's primary.
type Trial struct {
	N                int            `json:"n"`
	Shard            string         `json:"shard"`
	Killed           string         `json:"killed"`
	NewPrimary       string         `json:"newPrimary,omitempty"`
	PrimaryMs        float64        `json:"primaryMs"`           // kill to a writable primary again (election, or restart)
	RestartMs        float64        `json:"restartMs,omitempty"` // single: restart to answering ping
	RestartAttempts  int            `json:"restartAttempts,omitempty"`
	InterruptionMs   float64        `json:"interruptionMs"`
	GapMs            float64        `json:"gapMs"`
	OtherGapMs       float64        `json:"otherShardsGapMs"`
	ReadGapMs        float64        `json:"readGapMs"`
	WriteGapMs       float64        `json:"writeGapMs"`
	PreKillP99Ms     float64        `json:"preKillP99Ms"`
	StallThresholdMs float64        `json:"stallThresholdMs"`
	Failed           int            `json:"failedOps"`
	Stalled          int            `json:"stalledOps"`
	OtherFailed      int            `json:"otherShardsFailedOps"`
	Errors           map[string]int `json:"errors,omitempty"`
	RejoinMs         float64        `json:"rejoinMs,omitempty"`
	RejoinErr        string         `json:"rejoinError,omitempty"`
	Err              string         `json:"error,omitempty"`
}

func (t *Trial) setFigures(f Figures) {
	t.InterruptionMs, t.GapMs, t.OtherGapMs = ms(f.Interruption), ms(f.Gap), ms(f.OtherGap)
	t.ReadGapMs, t.WriteGapMs = ms(f.ReadGap), ms(f.WriteGap)
	t.PreKillP99Ms, t.StallThresholdMs = ms(f.PreKillP99), ms(f.Threshold)
	t.Failed, t.Stalled, t.OtherFailed, t.Errors = f.Failed, f.Stalled, f.OtherFailed, f.Errors
	if !f.Recovered && t.Err == "" {
		t.Err = "no success on the killed shard after the kill"
	}
}

// ModeReport is one mode's cluster, trials and read-back.
type ModeReport struct {
	Mode         string         `json:"mode"`
	ShardMembers int            `json:"shardMembers"`
	Reference    string         `json:"reference"`
	Trials       []Trial        `json:"trials"`
	Interruption failover.Stat  `json:"interruption"`
	Gap          failover.Stat  `json:"gap"`
	OtherGap     failover.Stat  `json:"otherShardsGap"`
	WriteGap     failover.Stat  `json:"writeGap"`
	Primary      failover.Stat  `json:"primaryAgain"`
	FailedTrials int            `json:"failedTrials"`
	Errors       map[string]int `json:"errors"` // failed ops in the trials' windows, by class
	Operations   int64          `json:"operations"`
	Throughput   float64        `json:"throughputOpsPerSec"`
	Dropped      int64          `json:"recordsDropped,omitempty"`
	Loss         Loss           `json:"readBack"`
	Err          string         `json:"error,omitempty"`
}

// finish computes the summaries over the trials that recovered.
func (m *ModeReport) finish() {
	var in, gap, og, pr, wg []time.Duration
	m.FailedTrials, m.Errors = 0, map[string]int{}
	for _, t := range m.Trials {
		for c, n := range t.Errors {
			m.Errors[c] += n
		}
		if t.Err != "" {
			m.FailedTrials++
			continue
		}
		in, gap, og = append(in, dur(t.InterruptionMs)), append(gap, dur(t.GapMs)), append(og, dur(t.OtherGapMs))
		pr, wg = append(pr, dur(t.PrimaryMs)), append(wg, dur(t.WriteGapMs))
	}
	m.Interruption, m.Gap = failover.Summarize(in), failover.Summarize(gap)
	m.OtherGap, m.Primary = failover.Summarize(og), failover.Summarize(pr)
	m.WriteGap = failover.Summarize(wg)
}

// Report is a shard-failover run's result.
type Report struct {
	Date          string       `json:"date"`
	GoVersion     string       `json:"goVersion"`
	CPUs          int          `json:"cpus"`
	Command       string       `json:"command,omitempty"`
	Shards        int          `json:"shards"`
	Routers       int          `json:"routers"`
	ConfigMembers int          `json:"configMembers"`
	RecordCount   int64        `json:"recordCount"`
	Threads       int          `json:"threads"`
	SettleMs      float64      `json:"settleMs"`
	StallFactor   float64      `json:"stallFactor"`
	MinStallMs    float64      `json:"minStallMs"`
	RestartAfter  float64      `json:"restartAfterMs"`
	Modes         []ModeReport `json:"modes"`
	GoalMet       bool         `json:"goalMet"`
	GoalJudged    bool         `json:"goalJudged"` // a replica-set mode ran
	Goal          string       `json:"goal"`
	DurationSecs  float64      `json:"durationSecs"`
	Notes         string       `json:"notes,omitempty"`
}

func newReport(cfg Config) *Report {
	return &Report{Date: time.Now().UTC().Format(time.RFC3339), GoVersion: runtime.Version(), CPUs: runtime.NumCPU(),
		Shards: cfg.Shards, Routers: cfg.Routers, ConfigMembers: cfg.ConfigMembers, RecordCount: cfg.RecordCount,
		Threads: cfg.Threads, SettleMs: ms(cfg.Settle), StallFactor: cfg.StallFactor, MinStallMs: ms(cfg.MinStall),
		RestartAfter: ms(cfg.RestartAfter)}
}

// finish decides the goal: the replica-set mode ran, recovered every
// trial with a median interruption <= 2 s, and no mode lost an
// acknowledged write or failed its read-back.
func (r *Report) finish() {
	met, rsSeen, lost := true, false, 0
	var why []string
	for i := range r.Modes {
		m := &r.Modes[i]
		m.finish()
		lost += m.Loss.Lost()
		if m.Loss.Err != "" || m.Err != "" {
			met = false
			why = append(why, m.Mode+" did not complete")
		}
		if m.Mode != ModeReplicaSet {
			continue
		}
		rsSeen = true
		if m.Interruption.N == 0 || m.FailedTrials > 0 || m.Interruption.MedianMs > goalMs {
			met = false
			why = append(why, fmt.Sprintf("replica-set median interruption %.0f ms over %d trials, %d failed",
				m.Interruption.MedianMs, m.Interruption.N, m.FailedTrials))
		}
	}
	if lost > 0 {
		met = false
		why = append(why, fmt.Sprintf("%d acknowledged writes lost", lost))
	}
	r.GoalJudged, r.GoalMet = rsSeen, met && rsSeen
	r.Goal = "median interruption <= 2000 ms with a replica-set shard, every trial recovered, no acknowledged write lost"
	switch {
	case !rsSeen:
		r.Goal += fmt.Sprintf(" (not judged: no replica-set mode ran; %d acknowledged writes lost)", lost)
	case len(why) > 0:
		r.Goal += " (missed: " + joinSorted(why) + ")"
	}
}

func joinSorted(s []string) string {
	sort.Strings(s)
	return strings.Join(s, "; ")
}

// verdict is the goal's one word.
func (r *Report) verdict() string {
	switch {
	case !r.GoalJudged:
		return "not judged"
	case r.GoalMet:
		return "met"
	}
	return "missed"
}

func ms(d time.Duration) float64   { return float64(d.Microseconds()) / 1000 }
func dur(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

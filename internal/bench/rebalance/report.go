package rebalance

import (
	"sort"
	"time"

	"github.com/relaydb/relaydb/internal/bench/experiment"
)

// Phase names.
const (
	PhaseBefore = "before"
	PhaseDuring = "during"
	PhaseAfter  = "after"
)

// Run is one run of a case on a fresh cluster.
type Run struct {
	N            int            `json:"n"`
	T0           time.Time      `json:"t0"` // the workload's start: phases are offsets from it
	ProbeOpsSec  float64        `json:"probeOpsPerSec"`
	TargetOpsSec float64        `json:"targetOpsPerSec"`
	LoadSecs     float64        `json:"loadSecs"`
	AddSecs      float64        `json:"addShardSecs"` // starting and adding the new shard(s), part of during
	Phases       []PhaseStats   `json:"phases"`
	Migrating    PhaseStats     `json:"migrating"`    // the during phase's ops that started in the migrations' span
	Moves        Moves          `json:"moves"`        // committed migrations that ended in the during phase
	MovesAfter   int            `json:"movesAfter"`   // migrations that ended after it (load-based, late)
	Migrations   []Migration    `json:"migrations"`   // every migration of the run
	TimedOut     bool           `json:"timedOut"`     // the during phase hit MaxDuring
	ChunksBefore map[string]int `json:"chunksBefore"` // chunks per shard
	ChunksAfter  map[string]int `json:"chunksAfter"`
	ErrorSample  []string       `json:"errorSample,omitempty"`
	Timeline     Timeline1s     `json:"timeline"`
	Error        string         `json:"error,omitempty"`
}

// Timeline1s is a run's per-second p99 of reads and updates (ms).
type Timeline1s struct {
	Read   []float64 `json:"readP99Ms"`
	Update []float64 `json:"updateP99Ms"`
}

// Stats is the run's statistics of phase name (zero when absent).
func (r Run) Stats(name string) PhaseStats {
	for _, p := range r.Phases {
		if p.Phase.Name == name {
			return p
		}
	}
	return PhaseStats{}
}

// P99Ratio is p99 during / p99 before over all successful operations.
func (r Run) P99Ratio() float64 {
	return Ratio(r.Stats(PhaseDuring).All.P99, r.Stats(PhaseBefore).All.P99)
}

// Case is the runs of one number of shards added at once.
type Case struct {
	Add    int        `json:"add"`
	From   int        `json:"fromShards"`
	Runs   []Run      `json:"runs"`
	Median CaseMedian `json:"median"`
}

// CaseMedian is the median over a case's runs that did not fail.
type CaseMedian struct {
	Runs        int                  `json:"runs"`
	P99Ratio    float64              `json:"p99Ratio"`
	ReadRatio   float64              `json:"readP99Ratio"`
	UpdateRatio float64              `json:"updateP99Ratio"`
	MigRatio    float64              `json:"migratingP99Ratio"` // p99 while migrating / before
	GoalMet     bool                 `json:"goalMet"`
	DuringSecs  float64              `json:"duringSecs"`
	MovedMB     float64              `json:"movedMB"`
	MBPerSec    float64              `json:"mbPerSec"`
	ActiveMBSec float64              `json:"activeMBPerSec"`
	PerMigMB    float64              `json:"perMigrationMBPerSec"`
	Migrations  float64              `json:"migrations"`
	TookMs      float64              `json:"medianTookMs"`   // a migration's time on its donor
	SpanPerMig  float64              `json:"spanSecsPerMig"` // the migrations' span over their count
	Phases      map[string]PhaseStat `json:"phases"`
}

// PhaseStat is the median of a phase's figures over runs.
type PhaseStat struct {
	OpsSec                     float64 `json:"opsPerSec"`
	Failed                     float64 `json:"failed"`
	ReadP50, ReadP95, ReadP99  float64
	ReadMax                    float64
	UpP50, UpP95, UpP99, UpMax float64
	AllP99                     float64
}

// Report is the experiment's result.
type Report struct {
	Command      string             `json:"command"`
	Note         string             `json:"note,omitempty"`
	Machine      experiment.Machine `json:"machine"`
	Config       Config             `json:"config"`
	Cases        []Case             `json:"cases"`
	DurationSecs float64            `json:"durationSecs"`
}

// Remeasure recomputes each run's Moves from its Migrations and phases
// (a report written by an older build), when T0 is known. Pure.
func (c *Case) Remeasure() {
	for i := range c.Runs {
		r := &c.Runs[i]
		d := r.Stats(PhaseDuring).Phase
		if r.T0.IsZero() || d.EndSecs == 0 {
			continue
		}
		at := func(s float64) time.Time { return r.T0.Add(time.Duration(s * float64(time.Second))) }
		r.Moves = SummarizeMoves(r.Migrations, at(d.StartSecs), at(d.EndSecs))
	}
}

// Summarize fills c.Median from c.Runs. Pure.
func (c *Case) Summarize() {
	var ok []Run
	for _, r := range c.Runs {
		if r.Error == "" && len(r.Phases) == 3 {
			ok = append(ok, r)
		}
	}
	m := CaseMedian{Runs: len(ok), Phases: map[string]PhaseStat{}}
	f := func(g func(Run) float64) float64 {
		v := make([]float64, len(ok))
		for i, r := range ok {
			v[i] = g(r)
		}
		return median(v)
	}
	m.P99Ratio = f(Run.P99Ratio)
	m.ReadRatio = f(func(r Run) float64 { return Ratio(r.Stats(PhaseDuring).Read.P99, r.Stats(PhaseBefore).Read.P99) })
	m.UpdateRatio = f(func(r Run) float64 { return Ratio(r.Stats(PhaseDuring).Update.P99, r.Stats(PhaseBefore).Update.P99) })
	m.MigRatio = f(func(r Run) float64 { return Ratio(r.Migrating.All.P99, r.Stats(PhaseBefore).All.P99) })
	m.GoalMet = len(ok) > 0 && m.P99Ratio <= GoalRatio
	m.DuringSecs = f(func(r Run) float64 { return r.Stats(PhaseDuring).Secs })
	m.MovedMB = f(func(r Run) float64 { return float64(r.Moves.Bytes) / MB })
	m.MBPerSec = f(func(r Run) float64 { return r.Moves.MBPerSec })
	m.ActiveMBSec = f(func(r Run) float64 { return r.Moves.ActiveMBSec })
	m.PerMigMB = f(func(r Run) float64 { return r.Moves.PerMigMedMB })
	m.TookMs = f(func(r Run) float64 { return r.Moves.MedTookMs })
	m.SpanPerMig = f(func(r Run) float64 { return Ratio(r.Moves.ActiveSecs, float64(r.Moves.Count)) })
	m.Migrations = f(func(r Run) float64 { return float64(r.Moves.Count) })
	for _, name := range []string{PhaseBefore, PhaseDuring, PhaseAfter} {
		g := func(h func(PhaseStats) float64) float64 { return f(func(r Run) float64 { return h(r.Stats(name)) }) }
		m.Phases[name] = PhaseStat{
			OpsSec: g(func(s PhaseStats) float64 { return s.Throughput }), Failed: g(func(s PhaseStats) float64 { return float64(s.Failed) }),
			ReadP50: g(func(s PhaseStats) float64 { return s.Read.P50 }), ReadP95: g(func(s PhaseStats) float64 { return s.Read.P95 }),
			ReadP99: g(func(s PhaseStats) float64 { return s.Read.P99 }), ReadMax: g(func(s PhaseStats) float64 { return s.Read.Max }),
			UpP50: g(func(s PhaseStats) float64 { return s.Update.P50 }), UpP95: g(func(s PhaseStats) float64 { return s.Update.P95 }),
			UpP99: g(func(s PhaseStats) float64 { return s.Update.P99 }), UpMax: g(func(s PhaseStats) float64 { return s.Update.Max }),
			AllP99: g(func(s PhaseStats) float64 { return s.All.P99 }),
		}
	}
	c.Median = m
}

// median of v (the mean of the middle two for an even count); 0 if empty.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

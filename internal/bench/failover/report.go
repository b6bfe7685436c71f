package failover

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"
)

// goalMs is the target for the median write unavailability.
const goalMs = 2000

// Report is a failover run's result.
type Report struct {
	Date       string     `json:"date"`
	GoVersion  string     `json:"goVersion"`
	CPUs       int        `json:"cpus"`
	Trials     []Trial    `json:"trials"`
	Writers    int        `json:"writers"`
	StallMs    float64    `json:"stallThresholdMs"`
	ExtraArgs  []string   `json:"serveArgs,omitempty"`
	Election   Stat       `json:"election"`
	WriteGap   Stat       `json:"writeUnavailability"`
	FailToOK   Stat       `json:"firstFailedToFirstOk"`
	ReadGap    Stat       `json:"readUnavailability"`
	Rejoin     Stat       `json:"rejoin"`
	Failed     int        `json:"failedTrials"`
	NoRejoin   int        `json:"trialsWithoutRejoin"`
	Sets       int        `json:"setsStarted"` // fresh sets: 1 + one per trial whose member did not rejoin, + the lag run's
	GoalMet    bool       `json:"goalMet"`     // median write unavailability <= 2 s
	Lag        *LagReport `json:"lag,omitempty"`
	Command    string     `json:"command,omitempty"`
	BuildNotes string     `json:"notes,omitempty"`
}

func newReport(cfg Config) *Report {
	return &Report{Date: time.Now().UTC().Format(time.RFC3339), GoVersion: runtime.Version(),
		CPUs: runtime.NumCPU(), Writers: cfg.Writers, StallMs: ms(cfg.StallAfter), ExtraArgs: cfg.ExtraArgs}
}

// finish computes the summaries over the trials that completed.
func (r *Report) finish() {
	var el, gap, f2o, rg, rj []time.Duration
	for _, t := range r.Trials {
		if t.Err != "" {
			r.Failed++
		}
		if t.RejoinErr != "" {
			r.NoRejoin++
		}
		if t.NewPrimary == "" {
			continue
		}
		el, gap, rg = append(el, dur(t.ElectionMs)), append(gap, dur(t.WriteGapMs)), append(rg, dur(t.ReadGapMs))
		if t.FailToOKMs > 0 {
			f2o = append(f2o, dur(t.FailToOKMs))
		}
		if t.RejoinMs > 0 {
			rj = append(rj, dur(t.RejoinMs))
		}
	}
	r.Election, r.WriteGap, r.FailToOK = summarize(el), summarize(gap), summarize(f2o)
	r.ReadGap, r.Rejoin = summarize(rg), summarize(rj)
	r.GoalMet = r.WriteGap.N > 0 && r.Failed == 0 && r.WriteGap.MedianMs <= goalMs
}

func dur(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

func trialLine(t Trial) string {
	s := fmt.Sprintf("trial %2d: kill -9 %s -> %s elected in %.0f ms; write gap %.0f ms, read gap %.0f ms, "+
		"%d failed / %d stalled writes; rejoined in %.0f ms", t.N, t.Killed, t.NewPrimary, t.ElectionMs,
		t.WriteGapMs, t.ReadGapMs, t.FailedWrites, t.Stalled, t.RejoinMs)
	if t.RejoinErr != "" {
		s += "; NO REJOIN: " + t.RejoinErr
	}
	if t.Err != "" {
		s += "; ERROR: " + t.Err
	}
	return s
}

func statLine(name string, s Stat) string {
	if s.N == 0 {
		return fmt.Sprintf("%-34s n/a\n", name)
	}
	return fmt.Sprintf("%-34s median %7.0f ms  min %7.0f ms  max %7.0f ms  (n=%d)\n", name, s.MedianMs, s.MinMs, s.MaxMs, s.N)
}

// WriteText writes the human-readable report.
func WriteText(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "failover: %d kill -9 trials on a 3-member set, %d writers (w:majority, retryable), 1 reader\n",
		len(r.Trials), r.Writers)
	for _, t := range r.Trials {
		b.WriteString(trialLine(t) + "\n")
	}
	b.WriteString(statLine("election (kill -> new PRIMARY)", r.Election))
	b.WriteString(statLine("write unavailability (ack gap)", r.WriteGap))
	b.WriteString(statLine("first failed/stalled -> first ok", r.FailToOK))
	b.WriteString(statLine("read unavailability (ack gap)", r.ReadGap))
	b.WriteString(statLine("rejoin (restart -> SECONDARY)", r.Rejoin))
	fmt.Fprintf(&b, "goal (median write unavailability <= %d ms, no failed trial): %s\n", goalMs, metWord(r.GoalMet))
	if r.NoRejoin > 0 {
		fmt.Fprintf(&b, "%d of %d killed members did not rejoin (each next trial used a fresh set; %d sets started)\n",
			r.NoRejoin, len(r.Trials), r.Sets)
	}
	if r.Lag != nil {
		b.WriteString(r.Lag.text())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func metWord(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// WriteJSON writes r as indented JSON.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

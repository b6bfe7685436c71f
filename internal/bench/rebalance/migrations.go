package rebalance

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"time"
)

// Migration is one donor's "migration finished" log line.
type Migration struct {
	NS          string    `json:"ns"`
	Range       string    `json:"range"`
	To          string    `json:"to"`
	Decision    string    `json:"decision"`
	End         time.Time `json:"end"`
	TookMs      float64   `json:"tookMs"`
	Cloned      int64     `json:"cloned"`
	ClonedBytes int64     `json:"clonedBytes"`
}

// MiBPerSec is the migration's clonedBytes over its time.
func (m Migration) MiBPerSec() float64 {
	if m.TookMs <= 0 {
		return 0
	}
	return float64(m.ClonedBytes) / (1 << 20) / (m.TookMs / 1000)
}

// logLine is the JSON of the donor's slog line.
type logLine struct {
	Time        time.Time `json:"time"`
	Msg         string    `json:"msg"`
	NS          string    `json:"ns"`
	Range       string    `json:"range"`
	To          string    `json:"to"`
	Decision    string    `json:"decision"`
	Took        string    `json:"took"`
	Cloned      int64     `json:"cloned"`
	ClonedBytes int64     `json:"clonedBytes"`
}

// maxLogLine bounds one log line read.
const maxLogLine = 1 << 20

// ParseMigrations reads a relaydb log (JSON lines) and returns the
// "migration finished" lines of namespace ns. Lines that are not JSON or
// too long are skipped. Pure but for reading r.
func ParseMigrations(r io.Reader, ns string) ([]Migration, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLogLine)
	var out []Migration
	for sc.Scan() {
		b := sc.Bytes()
		if !strings.Contains(string(b), `"migration finished"`) {
			continue
		}
		var l logLine
		if json.Unmarshal(b, &l) != nil || l.Msg != "migration finished" || l.NS != ns {
			continue
		}
		took, err := time.ParseDuration(l.Took)
		if err != nil {
			continue
		}
		out = append(out, Migration{NS: l.NS, Range: l.Range, To: l.To, Decision: l.Decision, End: l.Time,
			TookMs: float64(took) / float64(time.Millisecond), Cloned: l.Cloned, ClonedBytes: l.ClonedBytes})
	}
	return out, sc.Err()
}

// Moves summarizes the committed migrations that ended in [from, to).
type Moves struct {
	Count       int       `json:"count"`
	Aborted     int       `json:"aborted"`
	Bytes       int64     `json:"bytes"`
	Docs        int64     `json:"docs"`
	MBPerSec    float64   `json:"mbPerSec"` // Bytes over the window
	PerMigMedMB float64   `json:"perMigrationMedianMBPerSec"`
	PerMigMinMB float64   `json:"perMigrationMinMBPerSec"`
	PerMigMaxMB float64   `json:"perMigrationMaxMBPerSec"`
	MaxParallel int       `json:"maxParallel"` // most migrations running at one time
	ActiveSecs  float64   `json:"activeSecs"`  // first migration's start to the last one's end
	ActiveMBSec float64   `json:"activeMBPerSec"`
	MedTookMs   float64   `json:"medianTookMs"` // a migration's median time on its donor
	ActiveFrom  time.Time `json:"activeFrom"`   // the span's bounds; zero without a migration
	ActiveTo    time.Time `json:"activeTo"`
}

// MB is 10^6 bytes (the report's unit for data moved); MiB is 2^20.
const MB = 1e6

// SummarizeMoves is Moves of ms over [from, to). Pure.
func SummarizeMoves(ms []Migration, from, to time.Time) Moves {
	var mv Moves
	var rates, took []float64
	var in []Migration
	for _, m := range ms {
		if m.End.Before(from) || !m.End.Before(to) {
			continue
		}
		if m.Decision != "committed" {
			mv.Aborted++
			continue
		}
		in = append(in, m)
		mv.Count++
		mv.Bytes += m.ClonedBytes
		mv.Docs += m.Cloned
		took = append(took, m.TookMs)
		if m.TookMs > 0 {
			rates = append(rates, float64(m.ClonedBytes)/MB/(m.TookMs/1000))
		}
	}
	if secs := to.Sub(from).Seconds(); secs > 0 {
		mv.MBPerSec = float64(mv.Bytes) / MB / secs
	}
	if len(rates) > 0 {
		l := latency(rates, 0) // sorts rates
		mv.PerMigMedMB, mv.PerMigMinMB, mv.PerMigMaxMB = median(rates), rates[0], l.Max
	}
	mv.MaxParallel, mv.MedTookMs = maxParallel(in), median(took)
	if len(in) > 0 {
		first, last := in[0].start(), in[0].End
		for _, m := range in {
			if m.start().Before(first) {
				first = m.start()
			}
			if m.End.After(last) {
				last = m.End
			}
		}
		mv.ActiveFrom, mv.ActiveTo = first, last
		mv.ActiveSecs = last.Sub(first).Seconds()
		if mv.ActiveSecs > 0 {
			mv.ActiveMBSec = float64(mv.Bytes) / MB / mv.ActiveSecs
		}
	}
	return mv
}

// start is when the migration began: End less its time.
func (m Migration) start() time.Time {
	return m.End.Add(-time.Duration(m.TookMs * float64(time.Millisecond)))
}

// maxParallel is the most intervals [start, End) of ms overlapping.
func maxParallel(ms []Migration) int {
	best := 0
	for _, a := range ms {
		n := 0
		t := a.start()
		for _, b := range ms {
			if !t.Before(b.start()) && t.Before(b.End) {
				n++
			}
		}
		best = max(best, n)
	}
	return best
}

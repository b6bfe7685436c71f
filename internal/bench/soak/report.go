package soak

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/relaydb/relaydb/internal/crashtest"
)

// Report is a soak run's figures.
type Report struct {
	Command, Topology string
	Seed              uint64
	Start             time.Time
	Elapsed           time.Duration
	cfg               Config

	Kills, Verifies, VerifyFailures int
	YCSBChecked                     int64 // record comparisons over all checks

	YCSBInserts, YCSBUpdates, YCSBReads int64
	YCSBLost, YCSBInFlight, YCSBErrsUp  int64
	YCSBStale, YCSBPhantom              int64
	LostExamples                        []string

	DDLAcked     map[string]int
	DDLTotal     int
	DDLLost      int // checks that found acknowledged DDL effects missing
	DDLInFlight  int
	NotConverged int // secondaries that did not reach the primary's DDL state
	Notes        []string

	Hostile        []int64
	HostileRefused int64
	StallsClosed   int64
	StallsKilled   int64
	StallsOpen     int64
	StallMax       time.Duration

	RSSMax, RSSLast int64
	RSSSamples      int

	hostile *hostile
	rss     *rssSampler
}

func newReport(cfg Config) *Report {
	return &Report{cfg: cfg, Seed: cfg.Seed, Start: time.Now(), Topology: topology(cfg.Data)}
}

func topology(data int) string {
	if data == 0 {
		return "standalone {w:1, j:true}"
	}
	return fmt.Sprintf("%d-member replica set {w:\"majority\", j:true}", data)
}

// finish copies the counters in.
func (r *Report) finish(s *soak) {
	r.Elapsed = time.Since(r.Start)
	if y := s.y; y != nil {
		r.YCSBInserts, r.YCSBUpdates, r.YCSBReads = y.inserts.Load(), y.updates.Load(), y.reads.Load()
		r.YCSBLost, r.YCSBInFlight, r.YCSBErrsUp = y.lost.Load(), y.inflight.Load(), y.errsUp.Load()
		r.YCSBStale, r.YCSBPhantom, r.LostExamples = y.staleReads.Load(), y.phantom.Load(), y.lostExamples
	}
	if s.ddl != nil {
		r.DDLAcked, r.DDLTotal, r.DDLLost, r.DDLInFlight = s.ddl.Acked, s.ddl.TotalAcked(), s.ddl.Lost, s.ddl.Unsure
	}
	r.Notes = s.ddlErr
	if s.y != nil {
		s.y.errMu.Lock()
		for _, e := range s.y.errSamples {
			r.Notes = append(r.Notes, "YCSB op failed while up: "+e)
		}
		s.y.errMu.Unlock()
	}
	if r.hostile != nil {
		r.Hostile, r.HostileRefused = r.hostile.counts(), r.hostile.refused.Load()
		r.StallsClosed, r.StallsOpen = r.hostile.stallClosed.Load(), r.hostile.stalls.Load()
		r.StallsKilled, r.StallMax = r.hostile.stallKilled.Load(), time.Duration(r.hostile.stallMax.Load())
	}
	if r.rss != nil {
		r.RSSMax, r.RSSLast, r.RSSSamples = r.rss.read()
	}
}

// Lost is every acknowledged op found missing.
func (r *Report) Lost() int64 { return r.YCSBLost + int64(r.DDLLost) }

// OK reports a run with nothing lost, RSS within the bound and every
// verify clean.
func (r *Report) OK() bool {
	return r.Lost() == 0 && r.NotConverged == 0 && r.RSSMax <= r.cfg.RSSLimit && r.VerifyFailures == 0 && r.YCSBPhantom == 0
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// WriteMarkdown renders the report as a markdown table.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## relaydb bench soak\n\n`%s` — %s, %s, %d CPUs, seed %d\n\n", r.Command,
		r.Start.UTC().Format(time.RFC3339), runtime.Version(), runtime.NumCPU(), r.Seed)
	row := func(k string, v any, note string) { fmt.Fprintf(&b, "| %s | %v | %s |\n", k, v, note) }
	b.WriteString("| figure | value | note |\n| --- | --- | --- |\n")
	row("topology", r.Topology, "")
	row("duration", r.Elapsed.Round(time.Second), fmt.Sprintf("kill -9 every %v, plus one at the end", r.cfg.KillInterval))
	row("kills (SIGKILL + restart)", r.Kills, "")
	row("**acknowledged ops lost**", fmt.Sprintf("**%d**", r.Lost()), "must be 0")
	row("YCSB inserts acknowledged", r.YCSBInserts, fmt.Sprintf("%d threads, at most %d records of %d x %d B", r.cfg.Threads, r.cfg.Records, fieldCount, fieldLen))
	row("YCSB updates acknowledged", r.YCSBUpdates, "")
	row("YCSB reads answered", r.YCSBReads, fmt.Sprintf("%d stale (below the acked version), %d phantom", r.YCSBStale, r.YCSBPhantom))
	row("YCSB records lost", r.YCSBLost, fmt.Sprintf("%d record checks over all restarts", r.YCSBChecked))
	row("YCSB ops in flight at a kill", r.YCSBInFlight, "either outcome allowed")
	row("YCSB ops failed while up", r.YCSBErrsUp, "outcome adopted at the next check")
	row("DDL+CRUD ops acknowledged (crashtest generator)", r.DDLTotal, ddlKinds(r.DDLAcked))
	row("DDL checks that found effects missing", r.DDLLost, fmt.Sprintf("%d ops in flight or failed, either outcome allowed", r.DDLInFlight))
	if r.cfg.Data > 0 {
		row("secondaries not converged to the primary", r.NotConverged, "DDL databases, within 30 s of each restart")
	}
	row("tool verify runs / failures", fmt.Sprintf("%d / %d", r.Verifies, r.VerifyFailures), "after every kill, before restart")
	for i, k := range hostileKinds {
		if i < len(r.Hostile) {
			row("hostile: "+k, r.Hostile[i], "")
		}
	}
	row("hostile: stalls closed by the server while up", r.StallsClosed,
		fmt.Sprintf("longest held %v (we give up after %v); %d ended by a kill; %d open at the end", r.StallMax.Round(time.Millisecond), stallHold, r.StallsKilled, r.StallsOpen))
	row("hostile: dials refused", r.HostileRefused, "server down during a kill cycle; not counted as sent")
	row("RSS max (sampled every 1 s)", mib(r.RSSMax), fmt.Sprintf("%d samples; last %s", r.RSSSamples, mib(r.RSSLast)))
	row("RSS max / bound", fmt.Sprintf("%.1f%%", 100*float64(r.RSSMax)/float64(r.cfg.RSSLimit)), "bound --rss-limit "+mib(r.cfg.RSSLimit))
	row("result", map[bool]string{true: "PASS", false: "**FAIL**"}[r.OK()], "")
	if len(r.LostExamples)+len(r.Notes) > 0 {
		b.WriteString("\nNotes:\n\n")
		for _, n := range append(r.LostExamples, r.Notes...) {
			fmt.Fprintf(&b, "```\n%s\n```\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func ddlKinds(m map[string]int) string {
	var parts []string
	for _, k := range crashtest.Kinds {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

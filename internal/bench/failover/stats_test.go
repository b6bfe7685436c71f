package failover

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func at(ms ...int) []time.Time {
	out := make([]time.Time, len(ms))
	for i, m := range ms {
		out[i] = t0.Add(time.Duration(m) * time.Millisecond)
	}
	return out
}

func TestWindow(t *testing.T) {
	tests := []struct {
		name                string
		acks, fails, stalls []time.Time
		kill                int
		wantGap, wantF2O    time.Duration
		wantFailed          int
		wantRecovered       bool
	}{
		{name: "gap spans the kill", acks: at(0, 10, 20, 1520, 1530), kill: 25,
			wantGap: 1500 * time.Millisecond, wantRecovered: true},
		{name: "gaps before the kill do not count", acks: at(0, 900, 910, 1000, 1100), kill: 950,
			wantGap: 100 * time.Millisecond, wantRecovered: true},
		{name: "later gap larger than the spanning one", acks: at(0, 100, 200, 1200), kill: 50,
			wantGap: time.Second, wantRecovered: true},
		{name: "failure then ok", acks: at(0, 2000), fails: at(500, 600), kill: 10,
			wantGap: 2 * time.Second, wantF2O: 1500 * time.Millisecond, wantFailed: 2, wantRecovered: true},
		{name: "stall before failure", acks: at(0, 2000), fails: at(900), stalls: at(400), kill: 10,
			wantGap: 2 * time.Second, wantF2O: 1600 * time.Millisecond, wantFailed: 1, wantRecovered: true},
		{name: "not recovered", acks: at(0, 5), fails: at(100), kill: 10, wantFailed: 1},
		{name: "events outside the window ignored", acks: at(-5000, 0, 100, 9000), fails: at(-4000, 9500), kill: 50,
			wantGap: 100 * time.Millisecond, wantRecovered: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kill := t0.Add(time.Duration(tt.kill) * time.Millisecond)
			w := window(tt.acks, tt.fails, tt.stalls, kill, t0.Add(-time.Second), t0.Add(3*time.Second))
			if w.MaxGap != tt.wantGap || w.FailToOK != tt.wantF2O || w.Failed != tt.wantFailed || w.Recovered != tt.wantRecovered {
				t.Errorf("got gap %v failToOK %v failed %d recovered %v; want %v %v %d %v",
					w.MaxGap, w.FailToOK, w.Failed, w.Recovered, tt.wantGap, tt.wantF2O, tt.wantFailed, tt.wantRecovered)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		in   []time.Duration
		want Stat
	}{
		{nil, Stat{}},
		{[]time.Duration{3 * time.Second}, Stat{N: 1, MedianMs: 3000, MinMs: 3000, MaxMs: 3000}},
		{[]time.Duration{4 * time.Second, time.Second, 2 * time.Second}, Stat{N: 3, MedianMs: 2000, MinMs: 1000, MaxMs: 4000}},
		{[]time.Duration{4 * time.Second, time.Second, 2 * time.Second, 3 * time.Second}, Stat{N: 4, MedianMs: 2500, MinMs: 1000, MaxMs: 4000}},
	}
	for _, tt := range tests {
		if got := summarize(tt.in); got != tt.want {
			t.Errorf("summarize(%v) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestPercentile(t *testing.T) {
	ms := []float64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}
	for _, tt := range []struct{ p, want float64 }{{50, 5}, {99, 10}, {100, 10}, {0, 1}, {10, 1}, {11, 2}} {
		if got := percentile(ms, tt.p); got != tt.want {
			t.Errorf("percentile(%v) = %v, want %v", tt.p, got, tt.want)
		}
	}
	if percentile(nil, 50) != 0 {
		t.Error("percentile of nothing should be 0")
	}
}

func TestLagAt(t *testing.T) {
	ts := func(s, i uint32) bson.Timestamp { return bson.Timestamp{T: s, I: i} }
	hist := []seen{{t0, ts(10, 1)}, {t0.Add(100 * time.Millisecond), ts(10, 5)}, {t0.Add(300 * time.Millisecond), ts(11, 1)}}
	now := t0.Add(time.Second)
	tests := []struct {
		applied bson.Timestamp
		want    time.Duration
	}{
		{ts(11, 1), 0},                      // caught up
		{ts(12, 0), 0},                      // ahead of what was seen
		{ts(10, 5), 700 * time.Millisecond}, // behind since (11,1) was seen
		{ts(10, 3), 900 * time.Millisecond}, // behind since (10,5)
		{ts(9, 9), time.Second},             // behind since the first sample
		{ts(10, 1), 900 * time.Millisecond}, // equal to the first: behind since the second
		{ts(10, 4), 900 * time.Millisecond}, // between samples
		{ts(11, 0), 700 * time.Millisecond}, // same second, lower increment
	}
	for _, tt := range tests {
		if got := lagAt(hist, tt.applied, now); got != tt.want {
			t.Errorf("lagAt(%v) = %v, want %v", tt.applied, got, tt.want)
		}
	}
}

func TestReportRendering(t *testing.T) {
	r := newReport(Config{Writers: 2, StallAfter: 500 * time.Millisecond})
	r.Trials = []Trial{
		{N: 1, Killed: "m0", NewPrimary: "m1", ElectionMs: 1200, WriteGapMs: 1500, RejoinMs: 300},
		{N: 2, Killed: "m1", NewPrimary: "m2", ElectionMs: 1400, WriteGapMs: 2500, RejoinMs: 400},
		{N: 3, Killed: "m2", NewPrimary: "m0", ElectionMs: 1300, WriteGapMs: 1700, RejoinMs: 350},
	}
	r.Lag = &LagReport{Threads: 8, W: "1", Secondaries: []MemberLag{{Name: "m1", Samples: 10, P50Ms: 3, MaxMs: 40}}}
	r.finish()
	if r.WriteGap.MedianMs != 1700 || !r.GoalMet {
		t.Fatalf("median %v goalMet %v, want 1700 and met", r.WriteGap.MedianMs, r.GoalMet)
	}
	var txt, md, js bytes.Buffer
	if err := WriteText(&txt, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"median    1700 ms", "goal (median write unavailability <= 2000 ms, no failed trial): met", "m1: p50 3 ms"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, txt.String())
		}
	}
	for _, want := range []string{"| write unavailability | 1700 ms | 1500 ms | 2500 ms | 3 |", "| m1 | 10 | 3 ms |", "**met**"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if !strings.Contains(js.String(), `"medianMs": 1700`) {
		t.Errorf("JSON lacks the median:\n%s", js.String())
	}
	r.Trials = append(r.Trials, Trial{N: 4, Killed: "m0", Err: "no new primary"})
	r.Failed = 0
	r.finish()
	if r.GoalMet || r.Failed != 1 {
		t.Errorf("a failed trial must fail the goal: met %v failed %d", r.GoalMet, r.Failed)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []Config{{Trials: -1}, {Writers: -2}, {Settle: -time.Second}} {
		if c.Validate() == nil {
			t.Errorf("Validate(%+v) = nil, want an error", c)
		}
	}
	if err := (Config{}).Validate(); err != nil {
		t.Errorf("zero config: %v", err)
	}
	if d := (Config{}).withDefaults(); d.Trials != 10 || d.LagDuration != 20*time.Second || d.LagW != "1" {
		t.Errorf("defaults %+v", d)
	}
}

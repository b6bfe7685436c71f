package shardfailover

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func rsMode(interruptions ...float64) ModeReport {
	m := ModeReport{Mode: ModeReplicaSet, ShardMembers: 3, Reference: refReplicaSet}
	for i, v := range interruptions {
		m.Trials = append(m.Trials, Trial{N: i + 1, Shard: "sh0", Killed: "m0", NewPrimary: "m1", PrimaryMs: v,
			InterruptionMs: v, GapMs: v + 10, WriteGapMs: v + 20, OtherGapMs: v, Errors: map[string]int{"network": 1}})
	}
	return m
}

func TestReportGoal(t *testing.T) {
	single := ModeReport{Mode: ModeSingle, ShardMembers: 1, Trials: []Trial{{N: 1, InterruptionMs: 9000}}}
	tests := []struct {
		name     string
		modes    []ModeReport
		lose     int
		wantMet  bool
		wantMiss string
	}{
		{name: "fast failovers, nothing lost", modes: []ModeReport{rsMode(1200, 1900, 2500), single}, wantMet: true},
		{name: "median over 2 s", modes: []ModeReport{rsMode(1200, 2100, 2500)}, wantMiss: "median interruption 2100 ms"},
		{name: "a failed trial", modes: []ModeReport{func() ModeReport {
			m := rsMode(1000, 1000)
			m.Trials[1].Err = "no primary"
			return m
		}()}, wantMiss: "1 failed"},
		{name: "a lost write", modes: []ModeReport{rsMode(1000)}, lose: 1, wantMiss: "1 acknowledged writes lost"},
		{name: "only the single mode ran", modes: []ModeReport{single}, wantMiss: "not judged: no replica-set mode ran; 0 acknowledged writes lost"},
		{name: "the slow single mode does not count against the goal", modes: []ModeReport{rsMode(1500), single}, wantMet: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReport(Config{}.WithDefaults())
			r.Modes = tt.modes
			r.Modes[0].Loss.LostWrites = tt.lose
			r.finish()
			if r.GoalJudged == strings.HasPrefix(tt.wantMiss, "not judged") {
				t.Errorf("judged %v", r.GoalJudged)
			}
			if r.GoalMet != tt.wantMet || !strings.Contains(r.Goal, tt.wantMiss) {
				t.Errorf("met %v, goal %q; want met %v containing %q", r.GoalMet, r.Goal, tt.wantMet, tt.wantMiss)
			}
		})
	}
}

func TestReportRendering(t *testing.T) {
	r := newReport(Config{Shards: 2, Routers: 2, ConfigMembers: 1}.WithDefaults())
	r.Command = "relaydb bench experiment shard-failover -trials 3"
	r.Notes = "Ran while other work shared the 2 cores."
	single := ModeReport{Mode: ModeSingle, ShardMembers: 1, Reference: refSingle,
		Trials: []Trial{{N: 1, Shard: "sh0", Killed: "m0", NewPrimary: "m0", RestartMs: 500, PrimaryMs: 1800,
			InterruptionMs: 1850, Errors: map[string]int{"FailedToSatisfyReadPreference (133)": 4}}}}
	r.Modes = []ModeReport{rsMode(1200, 1700, 1400), single}
	r.Modes[0].Loss = Loss{AckedWrites: 1234, Documents: 1000}
	r.finish()
	if r.Modes[0].Interruption.MedianMs != 1400 || r.Modes[0].Errors["network"] != 3 {
		t.Fatalf("summary %+v errors %v", r.Modes[0].Interruption, r.Modes[0].Errors)
	}
	md := Markdown(r)
	for _, want := range []string{
		"| replica set (3 members) | 3 (0 failed) | 1400 ms | 1200 ms | 1700 ms | 1410 ms | 1420 ms |",
		"| 1234 | 0 | resumed in under 10 s |",
		"| single member | 1 (0 failed) | 1850 ms |",
		"about 120 s until restarted elsewhere",
		"**met**", "Ran while other work shared the 2 cores.",
		"| single member | FailedToSatisfyReadPreference (133) | 4 |",
		"| replica set (3 members) | network | 3 |",
		"2 shards, 1 config server, 2 routers", "restarted at once after the kill",
		"## Trials: single member", "| 1 | sh0 | m0 | m0 | 1800 | 500 | 1850 |",
		"median write gap is 1420 ms, within the 2000 ms goal",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil || !strings.Contains(js.String(), `"medianMs": 1400`) {
		t.Errorf("JSON (%v) lacks the median:\n%s", err, js.String())
	}
	if txt := Text(r); !strings.Contains(txt, "interruption median 1400 ms") || !strings.Contains(txt, ": met") {
		t.Errorf("text:\n%s", txt)
	}
}

func TestConfig(t *testing.T) {
	bad := []Config{{Trials: -1}, {Modes: []string{"standalone"}}, {ShardMembers: 2}, {Settle: -time.Second},
		{StallFactor: -1}, {RecordCount: -5}}
	for _, c := range bad {
		if c.Validate() == nil {
			t.Errorf("Validate(%+v) = nil, want an error", c)
		}
	}
	if err := (Config{}).Validate(); err != nil {
		t.Errorf("zero config: %v", err)
	}
	d := Config{}.WithDefaults()
	if d.Trials != 3 || d.Shards != 2 || d.ShardMembers != 3 || len(d.Modes) != 2 || d.StallFactor != 10 ||
		d.MinStall != 50*time.Millisecond || d.members(ModeSingle) != 1 || d.members(ModeReplicaSet) != 3 {
		t.Errorf("defaults %+v", d)
	}
}

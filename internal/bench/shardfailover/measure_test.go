package shardfailover

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(msec int) time.Time { return t0.Add(time.Duration(msec) * time.Millisecond) }

// o is an op on shard from start to end (ms after t0); class 0 = success.
func o(shard int16, start, end int, class uint16) op {
	return op{start: at(start), end: at(end), shard: shard, class: class}
}

// steady is n successes of 5 ms on shard, one every 10 ms from ms from.
func steady(shard int16, from, n int) []op {
	var out []op
	for i := 0; i < n; i++ {
		out = append(out, o(shard, from+10*i, from+10*i+5, 0))
	}
	return out
}

// dense is n successes of 5 ms on shard, one every 5 ms from ms from.
func dense(shard int16, from, n int) []op {
	var out []op
	for i := 0; i < n; i++ {
		out = append(out, o(shard, from+5*i, from+5*i+5, 0))
	}
	return out
}

func TestMeasure(t *testing.T) {
	classes := []string{"network", "FailedToSatisfyReadPreference (133)"}
	join := func(parts ...[]op) []op {
		var out []op
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	const kill = 1000
	tests := []struct {
		name             string
		ops              []op
		wantInterruption time.Duration
		wantGap          time.Duration
		wantOtherGap     time.Duration
		wantFailed       int
		wantStalled      int
		wantRecovered    bool
		wantErrors       map[string]int
	}{
		{name: "a stall across the kill, then recovery",
			ops: join(steady(0, 0, 99), steady(1, 0, 300),
				[]op{o(0, 995, 2500, 0), o(0, 2501, 2506, 0)}),
			// stalled op starts at 995, detected at 1045; first success after it is its own end
			wantInterruption: 1505 * time.Millisecond, wantGap: 1515 * time.Millisecond, wantOtherGap: 10 * time.Millisecond,
			wantStalled: 1, wantRecovered: true, wantErrors: map[string]int{}},
		{name: "failures then success; the earliest detected bad op starts the interruption",
			ops: join(steady(0, 0, 99), []op{o(0, 1001, 1200, 1), o(0, 1005, 1100, 2), o(0, 1300, 3000, 0)}),
			// detected first: the failure ending at 1100 (started 1005); first success after: 3000
			wantInterruption: 1995 * time.Millisecond, wantGap: 2015 * time.Millisecond,
			wantFailed: 2, wantStalled: 3, wantRecovered: true,
			wantErrors: map[string]int{"network": 1, "FailedToSatisfyReadPreference (133)": 1}},
		{name: "a stall before the kill is noise, not the interruption",
			// 199 quick ops and one of 200 ms before the kill: p99 5 ms, threshold 50 ms
			ops:              join(dense(0, 0, 100), []op{o(0, 500, 700, 0)}, dense(0, 500, 99), []op{o(0, 999, 1800, 0)}),
			wantInterruption: 801 * time.Millisecond, wantGap: 805 * time.Millisecond,
			wantStalled: 2, wantRecovered: true, wantErrors: map[string]int{}},
		{name: "no success after the kill",
			ops:        join(steady(0, 0, 99), []op{o(0, 1001, 1500, 1)}),
			wantFailed: 1, wantStalled: 1, wantErrors: map[string]int{"network": 1}},
		{name: "outage shorter than the stall threshold shows no interruption",
			ops:     join(steady(0, 0, 99), []op{o(0, 995, 1030, 0)}),
			wantGap: 45 * time.Millisecond, wantRecovered: true, wantErrors: map[string]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := measure(tt.ops, classes, 0, at(kill), at(0), at(5000), 10, 50*time.Millisecond)
			if f.Interruption != tt.wantInterruption || f.Gap != tt.wantGap || f.OtherGap != tt.wantOtherGap ||
				f.Failed != tt.wantFailed || f.Stalled != tt.wantStalled || f.Recovered != tt.wantRecovered {
				t.Errorf("got interruption %v gap %v other %v failed %d stalled %d recovered %v;\n"+
					"want %v %v %v %d %d %v", f.Interruption, f.Gap, f.OtherGap, f.Failed, f.Stalled, f.Recovered,
					tt.wantInterruption, tt.wantGap, tt.wantOtherGap, tt.wantFailed, tt.wantStalled, tt.wantRecovered)
			}
			if len(f.Errors) != len(tt.wantErrors) {
				t.Errorf("errors %v, want %v", f.Errors, tt.wantErrors)
			}
			for c, n := range tt.wantErrors {
				if f.Errors[c] != n {
					t.Errorf("errors %v, want %v", f.Errors, tt.wantErrors)
				}
			}
		})
	}
}

func TestStallThreshold(t *testing.T) {
	tests := []struct {
		name   string
		ops    []op
		factor float64
		floor  time.Duration
		want   time.Duration
	}{
		{"factor x p99", []op{o(0, 0, 5, 0), o(0, 10, 30, 0), o(0, 40, 44, 0)}, 10, time.Millisecond, 200 * time.Millisecond},
		{"floor when p99 is tiny", steady(0, 0, 10), 10, 80 * time.Millisecond, 80 * time.Millisecond},
		{"other shards and failures ignored", []op{o(0, 0, 5, 0), o(1, 0, 900, 0), o(0, 10, 400, 1)}, 10,
			time.Millisecond, 50 * time.Millisecond},
		{"ops ending after the kill ignored", []op{o(0, 0, 5, 0), o(0, 990, 1500, 0)}, 10, time.Millisecond, 50 * time.Millisecond},
		{"no ops before the kill: the floor", nil, 10, 50 * time.Millisecond, 50 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := measure(tt.ops, nil, 0, at(1000), at(0), at(2000), tt.factor, tt.floor)
			if f.Threshold != tt.want {
				t.Errorf("threshold %v (p99 %v), want %v", f.Threshold, f.PreKillP99, tt.want)
			}
		})
	}
}

func TestReadAndWriteGaps(t *testing.T) {
	w := func(start, end int) op { x := o(0, start, end, 0); x.kind = kindUpdate; return x }
	ops := []op{o(0, 0, 5, 0), w(10, 20), o(0, 990, 1300, 0), w(995, 1800)}
	f := measure(ops, nil, 0, at(1000), at(0), at(3000), 10, 50*time.Millisecond)
	if f.ReadGap != 1295*time.Millisecond || f.WriteGap != 1780*time.Millisecond || f.Gap != 1280*time.Millisecond {
		t.Errorf("read gap %v, write gap %v, gap %v; want 1.295s, 1.78s, 1.28s", f.ReadGap, f.WriteGap, f.Gap)
	}
	// the first stalled op (the read from 990) starts the interruption; the read's success ends it
	if f.Interruption != 310*time.Millisecond {
		t.Errorf("interruption %v, want 310ms", f.Interruption)
	}
}

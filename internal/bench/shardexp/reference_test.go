package shardexp

import (
	"fmt"
	"strings"
	"testing"
)

// cellsOf builds a lookup where every cell of cfg ran with figures from f.
func cellsOf(cfg Config, f func(Key) Measure) func(Key) *Cell {
	m := map[Key]*Cell{}
	for _, top := range Plan(cfg) {
		for _, k := range top.Keys {
			m[k] = &Cell{Key: k, Median: f(k)}
		}
	}
	return func(k Key) *Cell { return m[k] }
}

// referenceLike behaves as the reference describes: B faster than A,
// updates slower than reads, weaker durability faster, rs=3 slower,
// majority slower still, more shards faster with slower updates.
func referenceLike(k Key) Measure {
	tput := map[string]float64{"a": 1000, "b": 3000}[k.Workload]
	upd, read := 5000.0, 500.0
	switch k.Durability {
	case DurW1J0:
		tput, upd, read = tput*1.2, upd/2, read*1.1
	case DurW0:
		tput, upd = tput*1.5, 30
	case DurMajority:
		upd *= 1.5
	}
	if k.Workload == "b" && k.Durability == DurW0 {
		tput = 3000 * 1.25 // rises, but less than A's 1.5
	}
	if k.Members > 1 {
		tput, upd = tput*0.8, upd*1.3
	}
	tput *= float64(k.Shards) / 2
	upd *= 1 + float64(k.Shards)/10
	return Measure{Operations: 100, Throughput: tput, ReadAvgUs: read, UpdateAvgUs: upd, Reads: 50, Updates: 50}
}

func TestChecks(t *testing.T) {
	cfg := Config{}.WithDefaults()
	for _, tc := range []struct {
		name      string
		cells     func(Key) *Cell
		wantKnown int
		wantHeld  int
	}{
		{"every cell as the reference describes", cellsOf(cfg, referenceLike), 24, 24},
		{"nothing ran", func(Key) *Cell { return nil }, 0, 0},
		{"flat: every ratio 1 goes neither way", cellsOf(cfg, func(Key) Measure {
			return Measure{Operations: 1, Throughput: 10, ReadAvgUs: 10, UpdateAvgUs: 10}
		}), 24, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checks := Checks(cfg, tc.cells)
			known, held := 0, 0
			var lines []string
			for _, c := range checks {
				if c.Known {
					known++
				}
				if c.Holds {
					held++
				}
				lines = append(lines, fmt.Sprintf("%s %s %v %.3g %v", c.Series, c.Figure, c.Known, c.Ours, c.Holds))
			}
			if len(checks) != 24 || known != tc.wantKnown || held != tc.wantHeld {
				t.Errorf("%d checks, %d known, %d held; want 24, %d, %d:\n%s", len(checks), known, held,
					tc.wantKnown, tc.wantHeld, strings.Join(lines, "\n"))
			}
		})
	}
}

func TestChecksFollowSelection(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want []string // figures, in order
	}{
		{Config{Series: []string{SeriesBaseline}, Workloads: []string{"a"}}, []string{"update / read latency, A"}},
		{Config{Series: []string{SeriesScaleout}, Workloads: []string{"b"}, Scaleout: []int{2, 8}},
			[]string{"throughput 8 / 2 shards, B", "update latency 8 / 2 shards, B"}},
		{Config{Series: []string{SeriesTopology}, Members: 1}, nil},
		{Config{Series: []string{SeriesScaleout}, Scaleout: []int{4}}, nil},
	} {
		var got []string
		for _, c := range Checks(tc.cfg.WithDefaults(), func(Key) *Cell { return nil }) {
			got = append(got, c.Figure)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%+v: %q, want %q", tc.cfg.Series, got, tc.want)
		}
	}
}

func TestScaleoutReferenceOnlyFor2To8(t *testing.T) {
	for _, tc := range []struct {
		n    []int
		want string
	}{{[]int{2, 4, 8}, "2.02 (5.9 -> 11.9 ms)"}, {[]int{2, 4}, "> 1 (rises)"}} {
		cfg := Config{Series: []string{SeriesScaleout}, Workloads: []string{"a"}, Scaleout: tc.n}.WithDefaults()
		checks := Checks(cfg, func(Key) *Cell { return nil })
		if got := checks[len(checks)-1].Reference; got != tc.want {
			t.Errorf("%v: %q, want %q", tc.n, got, tc.want)
		}
	}
}

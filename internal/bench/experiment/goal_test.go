package experiment

import (
	"strings"
	"testing"
)

// cellOf builds a measured cell with the given throughputs and CPU/op.
func cellOf(nodes int, w, mode string, ops []float64, cpu []float64) *Cell {
	c := &Cell{Key: Key{LatencyUs: 100, Nodes: nodes, W: w, Mode: mode}}
	for i := range ops {
		c.Runs = append(c.Runs, RunResult{Run: i + 1, Throughput: ops[i], CPUKnown: cpu != nil, CPUPerOpUs: at(cpu, i)})
	}
	c.Summarize()
	return c
}

func at(v []float64, i int) float64 {
	if i < len(v) {
		return v[i]
	}
	return 0
}

func TestCheckGoal(t *testing.T) {
	for _, tc := range []struct {
		name          string
		on, off, auto *Cell
		ops, cpu      string
		detail        string
	}{
		{"auto best", cellOf(7, W1, ModeOn, []float64{100, 110, 120}, []float64{50, 50, 50}),
			cellOf(7, W1, ModeOff, []float64{80, 80, 80}, []float64{70, 70, 70}),
			cellOf(7, W1, ModeAuto, []float64{115, 118, 120}, []float64{48, 49, 50}), Pass, Pass, "vs best (on) 110"},
		{"within spread", cellOf(7, W1, ModeOn, []float64{100, 110, 120}, []float64{50, 50, 50}),
			cellOf(7, W1, ModeOff, []float64{80}, []float64{70}),
			cellOf(7, W1, ModeAuto, []float64{101, 101, 101}, []float64{55, 55, 55}), Pass, Miss, "± 10"},
		{"off is best", cellOf(7, WMajority, ModeOn, []float64{30}, []float64{50}),
			cellOf(7, WMajority, ModeOff, []float64{43}, []float64{85}),
			cellOf(7, WMajority, ModeAuto, []float64{31}, []float64{40}), Miss, Pass, "best (off) 43"},
		{"no auto", cellOf(3, W1, ModeOn, []float64{1}, nil), cellOf(3, W1, ModeOff, []float64{1}, nil), nil,
			NA, NA, "auto not measured"},
		{"cpu unknown", cellOf(3, W1, ModeOn, []float64{1}, nil), nil, cellOf(3, W1, ModeAuto, []float64{2}, nil),
			Pass, NA, "best (on)"},
	} {
		var cells []*Cell
		for _, c := range []*Cell{tc.on, tc.off, tc.auto} {
			if c != nil {
				cells = append(cells, c)
			}
		}
		rows := CheckGoal(cells)
		if len(rows) != 1 {
			t.Fatalf("%s: %d rows", tc.name, len(rows))
		}
		g := rows[0]
		if g.Throughput != tc.ops || g.CPU != tc.cpu || !strings.Contains(g.Detail, tc.detail) {
			t.Errorf("%s: got %s/%s %q, want %s/%s containing %q", tc.name, g.Throughput, g.CPU, g.Detail, tc.ops, tc.cpu, tc.detail)
		}
		if g.Pass() != (tc.ops == Pass && tc.cpu == Pass) {
			t.Errorf("%s: Pass() = %v", tc.name, g.Pass())
		}
	}
}

func TestCheckGoalRowsPerNodesAndW(t *testing.T) {
	cells := []*Cell{
		cellOf(3, WMajority, ModeOn, []float64{1}, nil), cellOf(3, WMajority, ModeAuto, []float64{1}, nil),
		cellOf(3, W1, ModeOn, []float64{1}, nil), cellOf(3, W1, ModeAuto, []float64{1}, nil),
	}
	rows := CheckGoal(cells)
	if len(rows) != 2 || rows[0].W != WMajority || rows[1].W != W1 || rows[1].Nodes != 3 {
		t.Errorf("rows %+v", rows)
	}
}

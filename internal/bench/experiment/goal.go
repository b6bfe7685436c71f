package experiment

import "fmt"

// GoalRow is issue #5 item 4's check for one (latency, nodes, w) row:
// auto's median throughput is at least the better of on and off within
// the run-to-run spread, and auto's primary core-µs per op is no higher
// than chaining-on's within the spread.
type GoalRow struct {
	LatencyUs  int64  `json:"latencyUs"`
	Nodes      int    `json:"nodes"`
	W          string `json:"w"`
	Throughput string `json:"throughput"` // PASS, MISS or n/a
	CPU        string `json:"cpu"`        // PASS, MISS or n/a
	Detail     string `json:"detail"`
}

// Verdicts.
const (
	Pass = "PASS"
	Miss = "MISS"
	NA   = "n/a"
)

// Pass reports whether both checks passed.
func (g GoalRow) Pass() bool { return g.Throughput == Pass && g.CPU == Pass }

// CheckGoal evaluates every row that has cells.
func CheckGoal(cells []*Cell) []GoalRow {
	type row struct {
		lat   int64
		nodes int
		w     string
	}
	by := map[row]map[string]*Cell{}
	var rows []row
	for _, c := range cells {
		k := row{c.LatencyUs, c.Nodes, c.W}
		if by[k] == nil {
			by[k] = map[string]*Cell{}
			rows = append(rows, k)
		}
		by[k][c.Mode] = c
	}
	out := make([]GoalRow, 0, len(rows))
	for _, k := range rows {
		g := checkRow(by[k][ModeOn], by[k][ModeOff], by[k][ModeAuto])
		g.LatencyUs, g.Nodes, g.W = k.lat, k.nodes, k.w
		out = append(out, g)
	}
	return out
}

func measured(c *Cell) bool { return c != nil && len(c.Runs) > 0 }

// checkRow compares auto with on and off. The tolerance of a comparison
// is the larger half-range of the two cells compared.
func checkRow(on, off, auto *Cell) GoalRow {
	g := GoalRow{Throughput: NA, CPU: NA}
	if !measured(auto) {
		g.Detail = "auto not measured"
		return g
	}
	best := on
	if !measured(on) || (measured(off) && off.Throughput.Median > on.Throughput.Median) {
		best = off
	}
	if measured(best) {
		tol := max(best.Throughput.Spread(), auto.Throughput.Spread())
		g.Throughput = verdict(auto.Throughput.Median >= best.Throughput.Median-tol)
		g.Detail = fmt.Sprintf("auto %.0f ops/s vs best (%s) %.0f ± %.0f", auto.Throughput.Median,
			best.Mode, best.Throughput.Median, tol)
	}
	if measured(on) && auto.Runs[0].CPUKnown && on.Runs[0].CPUKnown {
		tol := max(on.CPUPerOpUs.Spread(), auto.CPUPerOpUs.Spread())
		g.CPU = verdict(auto.CPUPerOpUs.Median <= on.CPUPerOpUs.Median+tol)
		g.Detail = joinMsg(g.Detail, fmt.Sprintf("primary core-µs/op auto %.1f vs on %.1f ± %.1f",
			auto.CPUPerOpUs.Median, on.CPUPerOpUs.Median, tol))
	}
	return g
}

func verdict(ok bool) string {
	if ok {
		return Pass
	}
	return Miss
}

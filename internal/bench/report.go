package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// formatFloat prints a double as Java's Double.toString does for the
// magnitudes YCSB reports: "1234.5", "12.0", "1.2345E7".
func formatFloat(v float64) string {
	a := math.Abs(v)
	if v == 0 || (a >= 1e-3 && a < 1e7) {
		s := strconv.FormatFloat(v, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(v, 'E', -1, 64)
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

// WriteText prints r in YCSB's text exporter format, plus the [SERVER]
// and [CLIENT] CPU lines relaydb adds.
func WriteText(out io.Writer, r *Result) error {
	var b strings.Builder
	line := func(section, metric, value string) {
		fmt.Fprintf(&b, "[%s], %s, %s\n", section, metric, value)
	}
	line("OVERALL", "RunTime(ms)", strconv.FormatInt(r.RunTimeMs, 10))
	line("OVERALL", "Throughput(ops/sec)", formatFloat(r.Throughput))
	if r.ServerCPUKnown {
		line("SERVER", "CpuTime(us)", strconv.FormatInt(r.ServerCPUMicros, 10))
		line("SERVER", "CpuPerOperation(us)", formatFloat(r.ServerCPUPerOp))
	}
	line("CLIENT", "CpuTime(us)", strconv.FormatInt(r.ClientCPUMicros, 10))
	line("CLIENT", "CpuPerOperation(us)", formatFloat(r.ClientCPUPerOp))
	for _, o := range r.Ops {
		i := func(v int64) string { return strconv.FormatInt(v, 10) }
		line(o.Name, "Operations", i(o.Operations))
		line(o.Name, "AverageLatency(us)", formatFloat(o.AvgMicros))
		line(o.Name, "MinLatency(us)", i(o.MinMicros))
		line(o.Name, "MaxLatency(us)", i(o.MaxMicros))
		line(o.Name, "95thPercentileLatency(us)", i(o.P95Micros))
		line(o.Name, "99thPercentileLatency(us)", i(o.P99Micros))
		for _, st := range sortedStatuses(o.Returns) {
			line(o.Name, "Return="+string(st), i(o.Returns[st]))
		}
	}
	_, err := io.WriteString(out, b.String())
	return err
}

// sortedStatuses lists OK first, then the others by name.
func sortedStatuses(m map[Status]int64) []Status {
	out := make([]Status, 0, len(m))
	for st := range m {
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool {
		if (out[i] == StatusOK) != (out[j] == StatusOK) {
			return out[i] == StatusOK
		}
		return out[i] < out[j]
	})
	return out
}

// WriteJSON prints r as indented JSON.
func WriteJSON(out io.Writer, r *Result) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	return nil
}

package svg

import (
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from golden; rerun with -update and review", name)
	}
}

// wellFormed parses s as XML so a broken escape or tag fails the test.
func wellFormed(t *testing.T, s string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(s))
	for {
		_, err := dec.Token()
		if err != nil {
			if err.Error() == "EOF" {
				return
			}
			t.Fatalf("not well-formed XML: %v", err)
		}
	}
}

func TestLine(t *testing.T) {
	s := Line("Throughput <vs> threads", "threads", "ops/s", []string{"1", "8", "32"}, []Series{
		{Name: "A & B", Values: []float64{1000, 4000, 4500}},
		{Name: "C", Values: []float64{1500, 6000}},
	})
	wellFormed(t, s)
	if !strings.Contains(s, "A &amp; B") || !strings.Contains(s, "&lt;vs&gt;") {
		t.Error("labels not escaped")
	}
	if !strings.Contains(s, `>10000<`) { // max 6000 rounds up to 10000
		t.Error("y axis top is not 10000")
	}
	golden(t, "line.svg", s)
}

func TestBars(t *testing.T) {
	s := Bars("Latency", "µs", []string{"A READ", "A UPDATE"}, []Series{
		{Name: "p50", Values: []float64{100, 120}},
		{Name: "p99", Values: []float64{900, -1}},
	})
	wellFormed(t, s)
	if strings.Count(s, "<rect x=") != 4+2 { // 4 bars + 2 legend swatches
		t.Errorf("want 6 rects, got %d", strings.Count(s, "<rect x="))
	}
	golden(t, "bars.svg", s)
}

func TestNiceMax(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{{0, 1}, {3, 5}, {10, 10}, {11, 20}, {4500, 5000}, {0.3, 0.5}} {
		if got := niceMax(c.in); got != c.want {
			t.Errorf("niceMax(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

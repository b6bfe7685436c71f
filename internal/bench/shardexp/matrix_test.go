package shardexp

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func keysString(t Topology) string {
	var parts []string
	for _, k := range t.Keys {
		parts = append(parts, k.Workload+"/"+k.Durability)
	}
	return fmt.Sprintf("%d/%d %d %d: %s", t.Shards, t.Members, t.Records, t.Threads, strings.Join(parts, " "))
}

func TestPlan(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want []string
	}{
		{"defaults: every cell once, w0 last", Config{}, []string{
			"2/1 20000 16: a/w1j1 b/w1j1 a/w1j0 b/w1j0 a/majority b/majority a/w0 b/w0",
			"2/3 20000 16: a/w1j1 b/w1j1 a/majority b/majority",
			"4/1 40000 32: a/w1j1 b/w1j1",
			"8/1 80000 64: a/w1j1 b/w1j1",
		}},
		{"baseline alone", Config{Series: []string{SeriesBaseline}}, []string{"2/1 20000 16: a/w1j1 b/w1j1"}},
		{"scale-out from 4 shards scales from the baseline", Config{Series: []string{SeriesScaleout}, Shards: 4,
			Records: 1000, Threads: 8, Scaleout: []int{2, 4, 8}, Workloads: []string{"a"}}, []string{
			"2/1 500 4: a/w1j1", "4/1 1000 8: a/w1j1", "8/1 2000 16: a/w1j1"}},
		{"topology with rs=5 and durability subset", Config{Series: []string{SeriesTopology, SeriesDurability},
			Members: 5, Durability: []string{DurW0, DurW1J1}, Workloads: []string{"b"}}, []string{
			"2/1 20000 16: b/w1j1 b/w0", "2/5 20000 16: b/w1j1 b/majority"}},
		{"threads never below one per router", Config{Series: []string{SeriesScaleout}, Threads: 2, Routers: 4,
			Scaleout: []int{1, 2}, Workloads: []string{"a"}}, []string{"1/1 10000 4: a/w1j1", "2/1 20000 4: a/w1j1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, top := range Plan(tc.cfg.WithDefaults()) {
				got = append(got, keysString(top))
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestSeriesKeysCoveredByPlan(t *testing.T) {
	cfg := Config{}.WithDefaults()
	planned := map[Key]bool{}
	for _, top := range Plan(cfg) {
		for _, k := range top.Keys {
			if planned[k] {
				t.Errorf("%v planned twice", k)
			}
			planned[k] = true
		}
	}
	for _, s := range AllSeries {
		for _, k := range cfg.SeriesKeys(s) {
			if !planned[k] {
				t.Errorf("series %s: %v not planned", s, k)
			}
		}
	}
}

func TestURIOptions(t *testing.T) {
	for d, want := range map[string]string{DurW0: "w=0&journal=false", DurW1J0: "w=1&journal=false",
		DurW1J1: "w=1&journal=true", DurMajority: "w=majority&journal=true"} {
		if got := URIOptions(d); got != want {
			t.Errorf("%s: %q, want %q", d, got, want)
		}
	}
	if got := uri("127.0.0.1:5", DurW0); got != "mongodb://127.0.0.1:5/ycsb?w=0&journal=false" {
		t.Errorf("uri %q", got)
	}
}

func TestEstimate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cfg      Config
		min, max time.Duration
	}{
		{"the default run fits the 12-minute budget", Config{}, 9 * time.Minute, 12 * time.Minute},
		{"quick is a couple of minutes", Config{}.Quick(), time.Minute, 3 * time.Minute},
		{"baseline alone, operations-bounded", Config{Series: []string{SeriesBaseline}, Operations: 4000, Runs: 1,
			Warmup: -1}, 20 * time.Second, 30 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Estimate(tc.cfg.WithDefaults()); got < tc.min || got > tc.max {
				t.Errorf("%v, want %v..%v", got, tc.min, tc.max)
			}
		})
	}
}

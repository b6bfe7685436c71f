package shardexp

import (
	"strings"
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string // "" = valid
	}{
		{"defaults", Config{}, ""},
		{"quick", Config{}.Quick(), ""},
		{"unknown series", Config{Series: []string{"failover"}}, `unknown series "failover"`},
		{"workload c", Config{Workloads: []string{"c"}}, `workload "c"`},
		{"unknown durability", Config{Durability: []string{"w2"}}, `unknown durability "w2"`},
		{"two members", Config{Members: 2}, "--members 2"},
		{"too many shards", Config{Scaleout: []int{2, 32}}, "shard count 32"},
		{"sub-second cell", Config{Duration: 500 * time.Millisecond}, "at least 1s"},
		{"operations only", Config{Operations: 1000}, ""},
		{"sub-second warm-up", Config{Warmup: time.Millisecond}, "--warmup"},
		{"no warm-up", Config{Warmup: -1}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.WithDefaults().Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestQuickKeepsExplicitFlags(t *testing.T) {
	c := Config{Records: 500, Scaleout: []int{2}}.Quick()
	if c.Records != 500 || c.Threads != 8 || c.Duration != 4*time.Second || len(c.Scaleout) != 1 || c.Runs != 1 {
		t.Errorf("%+v", c)
	}
	if d := (Config{Operations: 100}).WithDefaults().Duration; d != 0 {
		t.Errorf("--operations alone must not add a duration, got %v", d)
	}
}

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		total     int64
		n         int
		wantParts [][2]int64
	}{
		{10, 3, [][2]int64{{0, 4}, {4, 3}, {7, 3}}},
		{4, 4, [][2]int64{{0, 1}, {1, 1}, {2, 1}, {3, 1}}},
		{1, 2, [][2]int64{{0, 1}, {1, 0}}},
	} {
		for i, want := range tc.wantParts {
			from, count := split(tc.total, tc.n, i)
			if from != want[0] || count != want[1] {
				t.Errorf("split(%d, %d, %d) = %d, %d; want %v", tc.total, tc.n, i, from, count, want)
			}
		}
	}
}

func TestParse(t *testing.T) {
	if got := ParseList(" A, ,b "); strings.Join(got, "|") != "a|b" {
		t.Errorf("ParseList %q", got)
	}
	if _, err := ParseInts("2,x"); err == nil {
		t.Error("ParseInts accepted x")
	}
	if got, _ := ParseInts(""); got != nil {
		t.Errorf("ParseInts(\"\") = %v", got)
	}
}

func TestSampleText(t *testing.T) {
	if sampleText(nil) != "" || sampleText([]string{"x `y`"}) != ", e.g. `x 'y'`" {
		t.Errorf("sampleText %q", sampleText([]string{"x `y`"}))
	}
}

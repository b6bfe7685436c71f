package experiment

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestKeysExpandTheMatrix(t *testing.T) {
	keys := Config{}.Keys()
	if len(keys) != 3*3*2 {
		t.Fatalf("default matrix has %d cells, want 18", len(keys))
	}
	want0 := Key{LatencyUs: 100, Nodes: 3, W: WMajority, Mode: ModeOn}
	if keys[0] != want0 {
		t.Errorf("first cell %v, want %v", keys[0], want0)
	}
	seen := map[Key]bool{}
	for _, k := range keys {
		if seen[k] {
			t.Errorf("cell %v twice", k)
		}
		seen[k] = true
	}
	c := Config{Nodes: []int{15}, Modes: []string{ModeAuto}, W: []string{W1},
		Latencies: []time.Duration{100 * time.Microsecond, time.Millisecond}}
	got := c.Keys()
	want := []Key{{100, 15, W1, ModeAuto}, {1000, 15, W1, ModeAuto}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Keys = %v, want %v", got, want)
	}
	if g := c.Groups(); len(g) != 2 || g[1] != (Group{1000, 15, ModeAuto}) {
		t.Errorf("Groups = %v", g)
	}
}

func TestTopologiesAreTheReferences(t *testing.T) {
	for _, tc := range []struct {
		n, data, hidden, ro, voters int
		chaining                    string
		mode                        string
	}{
		{3, 2, 1, 0, 3, "true", ModeOn},
		{7, 6, 1, 0, 7, "false", ModeOff},
		{15, 6, 1, 8, 7, "auto", ModeAuto},
	} {
		top, err := TopologyFor(tc.n)
		if err != nil {
			t.Fatal(err)
		}
		s, err := top.Spec(tc.mode)
		if err != nil {
			t.Fatal(err)
		}
		if s.Data != tc.data || s.Hidden != tc.hidden || s.ReadOnly != tc.ro || s.Chaining != tc.chaining {
			t.Errorf("%d nodes: spec %+v", tc.n, s)
		}
		if s.Count() != tc.n || s.Voters() != tc.voters {
			t.Errorf("%d nodes: count %d voters %d, want %d and %d", tc.n, s.Count(), s.Voters(), tc.n, tc.voters)
		}
		hidden := 0
		for _, m := range s.Members() {
			if m.Hidden {
				hidden++
				if m.Votes != 1 || m.Priority != 0 {
					t.Errorf("%d nodes: hidden member %+v must vote with priority 0", tc.n, m)
				}
			}
		}
		if hidden != 1 {
			t.Errorf("%d nodes: %d hidden members", tc.n, hidden)
		}
	}
	if _, err := TopologyFor(5); err == nil {
		t.Error("TopologyFor(5) succeeded")
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Config{}, ""},
		{Config{Nodes: []int{4}}, "3, 7 and 15"},
		{Config{Modes: []string{"maybe"}}, "on, off or auto"},
		{Config{W: []string{"2"}}, "1 or majority"},
		{Config{Runs: -1}, "--runs"},
		{Config{RecordCount: -5}, "--recordcount"},
		{Config{Latencies: []time.Duration{-1}}, "negative"},
	} {
		err := tc.c.Validate()
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Validate(%+v) = %v, want %q", tc.c, err, tc.want)
		}
	}
}

func TestParse(t *testing.T) {
	d, err := ParseDurations("0.1ms, 100us,1ms")
	if err != nil || !reflect.DeepEqual(d, []time.Duration{100 * time.Microsecond, time.Millisecond}) {
		t.Errorf("ParseDurations = %v, %v", d, err)
	}
	if _, err := ParseDurations("fast"); err == nil {
		t.Error("ParseDurations(fast) succeeded")
	}
	n, err := ParseInts("3,,15")
	if err != nil || !reflect.DeepEqual(n, []int{3, 15}) {
		t.Errorf("ParseInts = %v, %v", n, err)
	}
	if _, err := ParseInts("3,x"); err == nil {
		t.Error("ParseInts(3,x) succeeded")
	}
}

func TestPairDelay(t *testing.T) {
	base := 100 * time.Microsecond
	cases := []struct {
		i, j int
		want time.Duration
	}{
		{0, 3, base}, {0, 1, 2 * base}, {0, 2, 3 * base}, {1, 2, 2 * base}, {5, 2, base}, {2, 0, 3 * base},
	}
	for _, c := range cases {
		if got := PairDelay(base, c.i, c.j); got != c.want {
			t.Errorf("PairDelay(%d, %d) = %v, want %v", c.i, c.j, got, c.want)
		}
		if PairDelay(base, c.i, c.j) != PairDelay(base, c.j, c.i) {
			t.Errorf("PairDelay(%d, %d) is not symmetric", c.i, c.j)
		}
	}
}

func TestWithW(t *testing.T) {
	for in, want := range map[string]string{
		"mongodb://a:1,b:2/?replicaSet=rs0": "mongodb://a:1,b:2/?replicaSet=rs0&w=majority",
		"mongodb://a:1":                     "mongodb://a:1/?w=majority",
		"mongodb://a:1/ycsb":                "mongodb://a:1/ycsb?w=majority",
	} {
		if got := WithW(in, WMajority); got != want {
			t.Errorf("WithW(%q) = %q, want %q", in, got, want)
		}
	}
}

// RunOrder runs every group once, and each mode in each position once
// across three topologies.
func TestRunOrderRotatesModes(t *testing.T) {
	c := Config{Nodes: []int{3, 7, 15}, Modes: []string{ModeOn, ModeOff, ModeAuto}}
	got := c.RunOrder()
	if len(got) != len(c.Groups()) {
		t.Fatalf("RunOrder has %d groups, Groups %d", len(got), len(c.Groups()))
	}
	seen := map[Group]bool{}
	first := map[string]bool{}
	for i, g := range got {
		if seen[g] {
			t.Fatalf("group %+v runs twice", g)
		}
		seen[g] = true
		if i%3 == 0 {
			first[g.Mode] = true
		}
	}
	if len(first) != 3 {
		t.Fatalf("modes run first: %v, want each of on, off, auto once (order %+v)", first, got)
	}
}

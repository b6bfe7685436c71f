package experiment

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/bench"
	"github.com/relaydb/relaydb/internal/cluster"
)

func TestDurationArg(t *testing.T) {
	for d, want := range map[time.Duration]string{
		100 * time.Microsecond: "100us", time.Millisecond: "1ms", 1500 * time.Nanosecond: "1500ns", 0: "0ms",
	} {
		if got := DurationArg(d); got != want {
			t.Errorf("DurationArg(%v) = %q, want %q", d, got, want)
		}
		if back, err := time.ParseDuration(DurationArg(d)); err != nil || back != d {
			t.Errorf("%q does not parse back to %v: %v %v", DurationArg(d), d, back, err)
		}
	}
}

// TestSpreadGivesEachMemberItsDelays: with spread every member gets the
// base delay and its own delay towards each peer.
func TestSpreadGivesEachMemberItsDelays(t *testing.T) {
	spec := cluster.Spec{Data: 6, Hidden: 1, ReadOnly: 8, Dir: t.TempDir(), Bin: "/bin/relaydb", BasePort: 40000}
	if err := applyLatency(&spec, 100*time.Microsecond, true); err != nil {
		t.Fatal(err)
	}
	if spec.Bin != "/bin/relaydb" || len(spec.ExtraArgs) != 0 || len(spec.MemberArgs) != 15 {
		t.Fatalf("spread must give per-member arguments only: %+v", spec)
	}
	// Member i's delay towards member j (port 40000+j): 100us in the same
	// zone (i mod 3), +100us per zone of distance.
	want := map[string]map[string]string{
		"m0":  {"127.0.0.1:40003": "100us", "127.0.0.1:40001": "200us", "127.0.0.1:40002": "300us"},
		"m1":  {"127.0.0.1:40004": "100us", "127.0.0.1:40000": "200us", "127.0.0.1:40002": "200us"},
		"m2":  {"127.0.0.1:40005": "100us", "127.0.0.1:40000": "300us", "127.0.0.1:40001": "200us"},
		"m10": {"127.0.0.1:40013": "100us", "127.0.0.1:40000": "200us", "127.0.0.1:40011": "200us"}, // zone 1
		"m14": {"127.0.0.1:40011": "100us", "127.0.0.1:40013": "200us", "127.0.0.1:40012": "300us"}, // zone 2
	}
	for name, delays := range want {
		args := spec.MemberArgs[name]
		if len(args) != 4 || args[0] != "--simulatedLatency" || args[1] != "100us" || args[2] != "--simulatedLatencyTo" {
			t.Errorf("%s: args %q", name, args)
			continue
		}
		peers := strings.Split(args[3], ",")
		if len(peers) != 14 {
			t.Errorf("%s: %d peers in %q", name, len(peers), args[3])
		}
		for host, d := range delays {
			if !slices.Contains(peers, host+"="+d) {
				t.Errorf("%s: %q, want %s=%s", name, args[3], host, d)
			}
		}
	}
}

func TestUniformLatencyIsAServeFlag(t *testing.T) {
	spec := cluster.Spec{Data: 2, Hidden: 1, Dir: t.TempDir(), Bin: "/bin/relaydb"}
	if err := applyLatency(&spec, time.Millisecond, false); err != nil {
		t.Fatal(err)
	}
	if spec.Bin != "/bin/relaydb" || strings.Join(spec.ExtraArgs, " ") != "--simulatedLatency 1ms" {
		t.Errorf("spec %+v", spec)
	}
	spec = cluster.Spec{Data: 2}
	if err := applyLatency(&spec, 0, true); err != nil || len(spec.ExtraArgs) != 0 || spec.Bin != "" {
		t.Errorf("zero latency changed the spec: %+v %v", spec, err)
	}
}

func TestMainFlags(t *testing.T) {
	bench.RegisterExperiment(Main)
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"experiment"}, 2, "Usage"},
		{[]string{"experiment", "replication"}, 2, "Usage"},
		{[]string{"experiment", "chaining", "--nodes", "4"}, 2, "3, 7 and 15"},
		{[]string{"experiment", "chaining", "--w", "2"}, 2, "1 or majority"},
		{[]string{"experiment", "chaining", "--latency", "soon"}, 2, "latency"},
		{[]string{"experiment", "chaining", "extra"}, 2, "unexpected argument"},
		{[]string{"experiment", "chaining", "-h"}, 0, "-recordcount"},
	} {
		var stdout, stderr bytes.Buffer
		if code := bench.Main(tc.args, &stdout, &stderr); code != tc.code || !strings.Contains(stderr.String(), tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d with %q", tc.args, code, stderr.String(), tc.code, tc.msg)
		}
	}
}

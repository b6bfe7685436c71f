package experiment

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/relaydb/relaydb/internal/cluster"
)

// Chaining modes as the experiment names them, and the cluster.Spec
// Chaining value each maps to.
const (
	ModeOn   = "on"   // settings.chainingAllowed: true (MongoDB's default)
	ModeOff  = "off"  // settings.chainingAllowed: false
	ModeAuto = "auto" // settings.chainingMode: "auto" (relaydb)
)

// Write concerns of the reference.
const (
	W1        = "1"
	WMajority = "majority"
)

// Config is one experiment invocation. Zero values mean the default
// written on each field (see WithDefaults).
type Config struct {
	Nodes       []int           // topologies by member count; default 3, 7, 15
	Modes       []string        // chaining modes; default on, off, auto
	W           []string        // write concerns; default majority, 1
	Latencies   []time.Duration // one-way node-to-node delays; default 100µs
	Spread      bool            // member i's delay = base × (1 + i mod 3)
	Auth, TLS   bool            // secure the sets as `relaydb cluster up --auth/--tls`
	Runs        int             // runs per cell; default 3
	RecordCount int64           // records per load; default DefaultRecordCount
	Threads     int             // client threads; default 8, the reference's
	Seed        uint64          // YCSB seed of run r is Seed+r; default 1
	Dir         string          // parent of the cluster directories; required by Run
	Bin         string          // relaydb binary; default the running executable
	Keep        bool            // leave cluster directories behind
	// QuiesceTimeout bounds the wait for members to catch up between runs;
	// default 60 s.
	QuiesceTimeout time.Duration
	// PollInterval is the replSetGetStatus period during a run; default 500 ms.
	PollInterval time.Duration
	// Warmup runs the same load (same w and threads, into table "warmup")
	// this long before each measured run, in every mode alike, so each
	// measures the topology its mode settles on for that write concern
	// rather than the previous run's; 0 = none. The CLI default is 4 s.
	Warmup time.Duration
}

// DefaultRecordCount sizes the default matrix (3 topologies × 3 modes × 2
// w × 3 runs = 54 loads plus 9 cluster start-ups) to finish in under 30
// minutes on the 2-core development machine (measured: 16-20 min per
// matrix at 0.1 ms and 1 ms, bench/results/README.md).
const DefaultRecordCount = 10000

// WithDefaults returns c with zero fields set to their defaults.
func (c Config) WithDefaults() Config {
	if len(c.Nodes) == 0 {
		c.Nodes = []int{3, 7, 15}
	}
	if len(c.Modes) == 0 {
		c.Modes = []string{ModeOn, ModeOff, ModeAuto}
	}
	if len(c.W) == 0 {
		c.W = []string{WMajority, W1}
	}
	if len(c.Latencies) == 0 {
		c.Latencies = []time.Duration{100 * time.Microsecond}
	}
	if c.Runs == 0 {
		c.Runs = 3
	}
	if c.RecordCount == 0 {
		c.RecordCount = DefaultRecordCount
	}
	if c.Threads == 0 {
		c.Threads = 8
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.QuiesceTimeout == 0 {
		c.QuiesceTimeout = 60 * time.Second
	}
	if c.PollInterval == 0 {
		c.PollInterval = 500 * time.Millisecond
	}
	return c
}

// Validate reports the first reason c (with defaults) cannot run.
func (c Config) Validate() error {
	c = c.WithDefaults()
	for _, n := range c.Nodes {
		if _, err := TopologyFor(n); err != nil {
			return err
		}
	}
	for _, m := range c.Modes {
		if _, err := chainingSpec(m); err != nil {
			return err
		}
	}
	for _, w := range c.W {
		if w != W1 && w != WMajority {
			return fmt.Errorf("experiment: --w must be 1 or majority, not %q", w)
		}
	}
	for _, l := range c.Latencies {
		if l < 0 {
			return fmt.Errorf("experiment: --latency must not be negative, got %v", l)
		}
	}
	switch {
	case c.Runs < 1:
		return fmt.Errorf("experiment: --runs must be at least 1, got %d", c.Runs)
	case c.RecordCount < 1:
		return fmt.Errorf("experiment: --recordcount must be at least 1, got %d", c.RecordCount)
	case c.Threads < 1:
		return fmt.Errorf("experiment: --threads must be at least 1, got %d", c.Threads)
	}
	return nil
}

// Topology is one of the reference's replica-set shapes.
type Topology struct {
	Nodes     int
	Data      int // primary + secondaries (electable, voting)
	Hidden    int // hidden, priority 0, voting
	ReadOnly  int // visible, priority 0, votes 0
	Describes string
}

// TopologyFor returns the reference topology with n members: 3 = primary,
// secondary, hidden; 7 = primary, 5 secondaries, hidden (7 voting); 15 =
// the 7 plus 8 read-only members.
func TopologyFor(n int) (Topology, error) {
	switch n {
	case 3:
		return Topology{Nodes: 3, Data: 2, Hidden: 1, Describes: "primary, 1 secondary, 1 hidden"}, nil
	case 7:
		return Topology{Nodes: 7, Data: 6, Hidden: 1, Describes: "primary, 5 secondaries, 1 hidden (7 voting)"}, nil
	case 15:
		return Topology{Nodes: 15, Data: 6, Hidden: 1, ReadOnly: 8,
			Describes: "primary, 5 secondaries, 1 hidden, 8 read-only (votes 0, priority 0)"}, nil
	}
	return Topology{}, fmt.Errorf("experiment: the reference has topologies of 3, 7 and 15 members, not %d", n)
}

// Spec is the cluster spec of t in chaining mode (without Dir and Bin).
func (t Topology) Spec(mode string) (cluster.Spec, error) {
	ch, err := chainingSpec(mode)
	if err != nil {
		return cluster.Spec{}, err
	}
	return cluster.Spec{Data: t.Data, Hidden: t.Hidden, ReadOnly: t.ReadOnly, Chaining: ch}, nil
}

func chainingSpec(mode string) (string, error) {
	switch mode {
	case ModeOn:
		return "true", nil
	case ModeOff:
		return "false", nil
	case ModeAuto:
		return "auto", nil
	}
	return "", fmt.Errorf("experiment: chaining mode must be on, off or auto, not %q", mode)
}

// Key names one cell of the matrix.
type Key struct {
	LatencyUs int64  `json:"latencyUs"`
	Nodes     int    `json:"nodes"`
	W         string `json:"w"`
	Mode      string `json:"mode"`
}

func (k Key) String() string {
	return fmt.Sprintf("%s nodes=%d w=%s chaining=%s", latencyLabel(k.LatencyUs), k.Nodes, k.W, k.Mode)
}

// Group is the cells that share one cluster: (latency, nodes, mode).
type Group struct {
	LatencyUs int64
	Nodes     int
	Mode      string
}

// Groups lists the clusters the matrix starts, in run order: latency,
// then nodes, then mode, each in the order given.
func (c Config) Groups() []Group {
	c = c.WithDefaults()
	var out []Group
	for _, l := range c.Latencies {
		for _, n := range c.Nodes {
			for _, m := range c.Modes {
				out = append(out, Group{LatencyUs: l.Microseconds(), Nodes: n, Mode: m})
			}
		}
	}
	return out
}

// RunOrder is Groups in the order they run: the modes rotate by one per
// (latency, nodes) topology, so no mode always runs first or last on a
// machine whose state drifts (runs of the same mode measured in a fixed
// last position came out slower than the same mode run first).
func (c Config) RunOrder() []Group {
	c = c.WithDefaults()
	var out []Group
	k := 0
	for _, l := range c.Latencies {
		for _, n := range c.Nodes {
			for i := range c.Modes {
				m := c.Modes[(i+k)%len(c.Modes)]
				out = append(out, Group{LatencyUs: l.Microseconds(), Nodes: n, Mode: m})
			}
			k++
		}
	}
	return out
}

// Keys expands the matrix into its cells in report order.
func (c Config) Keys() []Key {
	c = c.WithDefaults()
	var out []Key
	for _, g := range c.Groups() {
		for _, w := range c.W {
			out = append(out, Key{LatencyUs: g.LatencyUs, Nodes: g.Nodes, W: w, Mode: g.Mode})
		}
	}
	return out
}

// PairDelay is the simulated one-way delay between members i and j with
// spread: members sit in three zones (i mod 3, like racks or data
// centres); a message costs base within a zone and base × (1 + zone
// distance) across zones, so RTTs differ pair by pair and chaining has a
// real choice to make.
func PairDelay(base time.Duration, i, j int) time.Duration {
	d := i%3 - j%3
	if d < 0 {
		d = -d
	}
	return base * time.Duration(1+d)
}

func latencyLabel(us int64) string {
	return "latency=" + (time.Duration(us) * time.Microsecond).String()
}

// ParseList splits a comma-separated flag value, dropping empty items.
func ParseList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// ParseInts parses a comma-separated list of integers.
func ParseInts(s string) ([]int, error) {
	var out []int
	for _, f := range ParseList(s) {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("experiment: %q is not a number", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// ParseDurations parses a comma-separated list of Go durations; "0.1ms"
// and "100us" are the same.
func ParseDurations(s string) ([]time.Duration, error) {
	var out []time.Duration
	for _, f := range ParseList(s) {
		d, err := time.ParseDuration(f)
		if err != nil {
			return nil, fmt.Errorf("experiment: latency %q: %w", f, err)
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out, nil
}

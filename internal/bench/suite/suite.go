// Package suite runs relaydb's standard benchmark suite (issue #3 item 5):
// on a fresh single node, a YCSB load, then core workloads A, B, C and F at
// 1, 8 and 32 threads, then the load's durability matrix (w:0, w:1
// j:false, w:1 j:true), and writes a markdown table, a JSON document with
// the machine's facts, and SVG plots under bench/results/.
//
// Invariants: every phase goes through the same bench.RunPhase as
// "relaydb bench load/run", so suite figures equal what a user measures by
// hand; the target is any mongodb:// URI, so the same suite measures
// another server; a server the suite starts is always stopped.
package suite

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/relaydb/relaydb/internal/bench"
)

// Config is one suite run; zero fields take the defaults noted.
type Config struct {
	URI               string   // target; ignored with StartServer
	StartServer       bool     // start relaydb on a free loopback port
	Binary            string   // relaydb binary for StartServer
	Name              string   // results file stem; default relaydb-<date>
	OutDir            string   // default bench/results
	RecordCount       int64    // records loaded for the workloads; default 100000
	OperationCount    int64    // operations per workload run; default 30000
	DurabilityRecords int64    // records per durability-matrix load; default 5000
	Threads           []int    // default 1, 8, 32
	Workloads         []string // default a, b, c, f
	LoadThreads       int      // threads of the main load; default 8
	Seed              uint64   // 0 = random
	GitCommit         string   // default: asked of git
	// Scale lists record counts of the scale series (scale.go): each is
	// loaded into a fresh node started from Binary; none by default.
	Scale []int64
	// ScaleChunk is the records per load phase of the series; default
	// DefaultScaleChunk.
	ScaleChunk int64
	// ScaleOnly runs the scale series alone (no load, workloads, matrix).
	ScaleOnly bool
	Log       io.Writer
	Status    io.Writer // phase status lines, or nil
}

func (c *Config) ensureDefaults(now time.Time) {
	if c.Name == "" {
		c.Name = "relaydb-" + now.UTC().Format("20060102-150405")
	}
	if c.OutDir == "" {
		c.OutDir = "bench/results"
	}
	if c.RecordCount == 0 {
		c.RecordCount = 20000
	}
	if c.OperationCount == 0 {
		c.OperationCount = 10000
	}
	if c.DurabilityRecords == 0 {
		c.DurabilityRecords = 2000
	}
	if len(c.Threads) == 0 {
		c.Threads = []int{1, 8, 32}
	}
	if len(c.Workloads) == 0 {
		c.Workloads = []string{"a", "b", "c", "f"}
	}
	if c.LoadThreads == 0 {
		c.LoadThreads = 8
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	if c.ScaleChunk <= 0 {
		c.ScaleChunk = DefaultScaleChunk
	}
}

// Entry is one phase of the suite.
type Entry struct {
	Workload   string        `json:"workload"` // "load" or a preset a..f
	Durability string        `json:"durability"`
	Threads    int           `json:"threads"`
	Result     *bench.Result `json:"result"`
}

// Report is everything a suite run produced.
type Report struct {
	Name    string  `json:"name"`
	Machine Machine `json:"machine"`
	Config  struct {
		RecordCount       int64 `json:"recordcount"`
		OperationCount    int64 `json:"operationcount"`
		DurabilityRecords int64 `json:"durabilityRecordcount"`
		ScaleChunk        int64 `json:"scaleChunk,omitempty"`
	} `json:"config"`
	Entries []Entry `json:"entries"`
	// Scale is the scale series, one entry per record count.
	Scale []ScaleEntry `json:"scale,omitempty"`
}

// durabilityModes are the write concerns of the load matrix, as URI options.
var durabilityModes = []struct{ label, options string }{
	{"w:0", "w=0"},
	{"w:1 j:false", "w=1&journal=false"},
	{"w:1 j:true", "w=1&journal=true"},
}

// Run executes the suite and returns its report (not yet written).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	now := time.Now()
	cfg.ensureDefaults(now)
	if cfg.StartServer {
		srv, err := StartServer(ctx, cfg.Binary, io.Discard)
		if err != nil {
			return nil, err
		}
		defer srv.Stop()
		cfg.URI = srv.URI
		fmt.Fprintf(cfg.Log, "suite: started relaydb at %s\n", srv.URI)
	}
	if cfg.URI == "" {
		cfg.URI = bench.DefaultURI
	}
	rep := &Report{Name: cfg.Name, Machine: machineFacts(ctx, cfg.URI, cfg.GitCommit, now)}
	rep.Config.RecordCount, rep.Config.OperationCount = cfg.RecordCount, cfg.OperationCount
	rep.Config.DurabilityRecords = cfg.DurabilityRecords
	if len(cfg.Scale) > 0 {
		rep.Config.ScaleChunk = cfg.ScaleChunk
	}
	r := runner{cfg: cfg, rep: rep}
	steps := []func(context.Context) error{r.load, r.workloads, r.durability}
	if cfg.ScaleOnly {
		steps = nil
	}
	if len(cfg.Scale) > 0 {
		if cfg.Binary == "" {
			return rep, fmt.Errorf("the scale series starts its own nodes: give the relaydb binary")
		}
		steps = append(steps, r.scales)
	}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

type runner struct {
	cfg Config
	rep *Report
}

// phase runs one load or run and appends it to the report.
func (r *runner) phase(ctx context.Context, e Entry, phase, uri string, p bench.Properties, drop bool) error {
	p["mongodb.url"] = uri
	p["threadcount"] = strconv.Itoa(e.Threads)
	res, err := bench.RunPhase(ctx, bench.PhaseConfig{Phase: phase, Props: p, Drop: drop, Seed: r.cfg.Seed,
		Status: r.cfg.Status, Stderr: r.cfg.Log})
	if err != nil {
		return fmt.Errorf("%s %s (%s, %d threads): %w", phase, e.Workload, e.Durability, e.Threads, err)
	}
	e.Result = res
	r.rep.Entries = append(r.rep.Entries, e)
	fmt.Fprintf(r.cfg.Log, "suite: %-6s %-12s %2d threads: %8.0f ops/s, server %6.1f core-us/op, client %6.1f core-us/op\n",
		e.Workload, e.Durability, e.Threads, res.Throughput, res.ServerCPUPerOp, res.ClientCPUPerOp)
	return nil
}

func (r *runner) props(preset string) bench.Properties {
	p, _ := bench.Preset(preset) // presets are constants: never fails
	p["recordcount"] = strconv.FormatInt(r.cfg.RecordCount, 10)
	p["operationcount"] = strconv.FormatInt(r.cfg.OperationCount, 10)
	return p
}

// load fills the table the workloads read, with the URI's write concern.
func (r *runner) load(ctx context.Context) error {
	e := Entry{Workload: "load", Durability: "default", Threads: r.cfg.LoadThreads}
	return r.phase(ctx, e, bench.PhaseLoad, r.cfg.URI, r.props("a"), true)
}

func (r *runner) workloads(ctx context.Context) error {
	for _, w := range r.cfg.Workloads {
		for _, t := range r.cfg.Threads {
			e := Entry{Workload: strings.ToLower(w), Durability: "default", Threads: t}
			if err := r.phase(ctx, e, bench.PhaseRun, r.cfg.URI, r.props(w), false); err != nil {
				return err
			}
		}
	}
	return nil
}

// durability loads DurabilityRecords into a dropped table per write
// concern and thread count.
func (r *runner) durability(ctx context.Context) error {
	for _, mode := range durabilityModes {
		uri, err := WithWriteConcern(r.cfg.URI, mode.options)
		if err != nil {
			return err
		}
		for _, t := range r.cfg.Threads {
			p := r.props("a")
			p["recordcount"] = strconv.FormatInt(r.cfg.DurabilityRecords, 10)
			e := Entry{Workload: "load", Durability: mode.label, Threads: t}
			if err := r.phase(ctx, e, bench.PhaseLoad, uri, p, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// WithWriteConcern replaces the write-concern options (w, journal, j,
// wtimeoutMS) of a mongodb:// URI with opts ("w=1&journal=true").
func WithWriteConcern(uri, opts string) (string, error) {
	base, query, _ := strings.Cut(uri, "?")
	scheme, rest, ok := strings.Cut(base, "://")
	if !ok {
		return "", fmt.Errorf("URI %q: want mongodb://host[:port][/db][?options]", uri)
	}
	if !strings.Contains(rest, "/") {
		base = scheme + "://" + rest + "/"
	}
	var keep []string
	for _, kv := range strings.Split(query, "&") {
		k, _, _ := strings.Cut(kv, "=")
		switch strings.ToLower(k) {
		case "", "w", "journal", "j", "wtimeoutms":
			continue
		}
		keep = append(keep, kv)
	}
	if _, err := url.ParseQuery(opts); err != nil {
		return "", fmt.Errorf("write concern options %q: %w", opts, err)
	}
	keep = append(keep, opts)
	return base + "?" + strings.Join(keep, "&"), nil
}

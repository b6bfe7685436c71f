package experiment

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// BuildCommit is the commit the binary was built from, when the caller
// knows it; "" falls back to the build's VCS stamp, then git.
var BuildCommit string

const usage = `Usage: relaydb bench experiment chaining|NAME [flags]

chaining builds the reference's replica sets (3, 7, 15 members) on loopback
and runs the YCSB load for every nodes × w × chaining mode cell; writes
OUT/NAME.md, OUT/NAME.json and OUT/NAME-throughput.svg.
`

// others are the experiments other packages register (Register), by name.
var others = map[string]func(args []string, stdout, stderr io.Writer) int{}

// Register adds "relaydb bench experiment NAME": main gets the arguments
// after NAME. Call it from main's setup, before Main runs.
func Register(name string, main func(args []string, stdout, stderr io.Writer) int) {
	others[name] = main
}

// Main is "relaydb bench experiment chaining|NAME [flags]".
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && others[args[0]] != nil {
		return others[args[0]](args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "chaining" {
		fmt.Fprint(stderr, usage)
		for name := range others {
			fmt.Fprintf(stderr, "  relaydb bench experiment %s --help\n", name)
		}
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			return 0
		}
		return 2
	}
	cfg, out, name, from, code := parseFlags(args[1:], stderr)
	if code >= 0 {
		return code
	}
	if from != "" {
		return rerender(from, out, name, stdout, stderr)
	}
	return Run("relaydb bench experiment", stdout, stderr, func(ctx context.Context) (*Outcome, error) {
		r, err := Execute(ctx, cfg, "relaydb bench experiment "+strings.Join(args, " "), stderr)
		if r == nil {
			return nil, err
		}
		paths, werr := Write(r, out, name)
		var goals strings.Builder
		for _, g := range r.Goal {
			fmt.Fprintf(&goals, "%s nodes=%d w=%s: throughput %s, CPU/op %s (%s)\n",
				latencyLabel(g.LatencyUs), g.Nodes, g.W, g.Throughput, g.CPU, g.Detail)
		}
		return &Outcome{Paths: paths, Text: goals.String(), WriteErr: werr}, err
	})
}

// parseFlags returns the config, results dir and name, or an exit code
// >= 0 when Main should stop.
func parseFlags(args []string, stderr io.Writer) (cfg Config, out, name, from string, code int) {
	var nodes, modes, ws, lats string
	fs := NewFlagSet("relaydb bench experiment chaining", "", stderr)
	fs.StringVar(&nodes, "nodes", "3,7,15", "topologies by member count (3, 7, 15)")
	fs.StringVar(&modes, "modes", "on,off,auto", "chaining modes (on, off, auto)")
	fs.StringVar(&ws, "w", "majority,1", "write concerns (1, majority)")
	fs.StringVar(&lats, "latency", "0.1ms", "simulated one-way node-to-node delays, comma-separated (e.g. 0.1ms,1ms)")
	fs.BoolVar(&cfg.Spread, "spread", false, "unequal distances: members in three zones (i mod 3), delay latency × (1 + zone distance) per pair")
	fs.BoolVar(&cfg.Auth, "auth", false, "start the sets with a key file and a root user, as relaydb cluster up --auth")
	fs.BoolVar(&cfg.TLS, "tls", false, "start the sets requiring TLS, as relaydb cluster up --tls")
	fs.IntVar(&cfg.Runs, "runs", 3, "runs per cell")
	fs.DurationVar(&cfg.Warmup, "warmup", DefaultWarmup, "same load into table \"warmup\" before each measured run (0 = none)")
	fs.Int64Var(&cfg.RecordCount, "recordcount", DefaultRecordCount, "records per load")
	fs.IntVar(&cfg.Threads, "threads", 8, "client threads")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "YCSB seed of run 1 (run r uses seed+r-1)")
	fs.StringVar(&cfg.Dir, "dir", "", "parent directory of the clusters (default a temporary directory)")
	fs.StringVar(&cfg.Bin, "bin", "", "relaydb binary for the members (default this executable)")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the cluster directories (data and logs)")
	fs.StringVar(&out, "out", "bench/results", "results directory")
	fs.StringVar(&name, "name", "chaining", "results file name stem")
	fs.StringVar(&from, "from", "", "render NAME.md and the chart again from this JSON report instead of running")
	return cfg, out, name, from, ParseFlags("relaydb bench experiment", fs, args, func() (err error) {
		if cfg.Nodes, err = ParseInts(nodes); err == nil {
			cfg.Latencies, err = ParseDurations(lats)
		}
		cfg.Modes, cfg.W = ParseList(modes), ParseList(ws)
		if err != nil {
			return err
		}
		return cfg.Validate()
	})
}

// rerender rewrites the results of a JSON report (warnings recomputed).
func rerender(from, out, name string, stdout, stderr io.Writer) int {
	r, err := ReadReport(from)
	var paths []string
	if err == nil {
		r = NewReport(r.Config, r.Command, r.Machine, r.Cells, time.Duration(r.DurationSecs*float64(time.Second)))
		paths, err = Write(r, out, name)
	}
	return Finish("relaydb bench experiment", paths, "", err, nil, stdout, stderr)
}

// Execute runs the matrix of cfg with real clusters and returns the
// report; the error lists failed cells (the report is still complete as
// far as it got). log receives one line per run.
func Execute(ctx context.Context, cfg Config, command string, log io.Writer) (*Report, error) {
	cfg = cfg.WithDefaults()
	dir, done, err := WorkDir(cfg.Dir, "relaydb-experiment-", cfg.Keep)
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	defer done()
	cfg.Dir = dir
	start := time.Now()
	r := &Runner{Config: cfg, Log: log}
	cells, err := r.Run(ctx)
	if cells == nil {
		return nil, err
	}
	rep := NewReport(cfg, command, ThisMachine(BuildCommit, start), cells, time.Since(start))
	rep.Config.Dir = "" // a temporary path; not a result
	return rep, err
}

// ShellJoin joins args as a shell needs them (an experiment's report
// quotes its command line): an argument with anything but letters,
// digits and -_./:=,@ is single-quoted.
func ShellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "" || strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@", r))
		}) >= 0 {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

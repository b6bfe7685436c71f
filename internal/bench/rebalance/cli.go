package rebalance

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/relaydb/relaydb/internal/bench/experiment"
)

const usage = `Usage: relaydb bench experiment rebalance [flags]

Starts a sharded cluster per run, loads YCSB's usertable (hashed _id),
runs a YCSB workload throttled to a fraction of its unthrottled
throughput through every router, adds shard(s) to the running cluster
and lets the balancer move ranges onto them: foreground latency before,
during and after, and the migrations' MB/s. Writes OUT/NAME.md,
OUT/NAME.json and OUT/NAME-addN.svg.
`

// cmdName names the command in its flag set and errors.
const cmdName = "relaydb bench experiment rebalance"

// Main is "relaydb bench experiment rebalance [flags]".
func Main(args []string, stdout, stderr io.Writer) int {
	cfg, out, name, note, from, code := parseFlags(args, stderr)
	if code >= 0 {
		return code
	}
	if from != "" {
		return rerender(from, out, name, note, stdout, stderr)
	}
	return experiment.Run(cmdName, stdout, stderr, func(ctx context.Context) (*experiment.Outcome, error) {
		r, err := Execute(ctx, cfg, strings.TrimSpace(cmdName+" "+experiment.ShellJoin(args)), stderr)
		if r == nil {
			return nil, err
		}
		r.Note = note
		paths, werr := Write(r, out, name)
		return &experiment.Outcome{Paths: paths, WriteErr: werr}, err
	})
}

func parseFlags(args []string, stderr io.Writer) (cfg Config, out, name, note, from string, code int) {
	var adds string
	fs := experiment.NewFlagSet(cmdName, usage, stderr)
	fs.StringVar(&adds, "add", "1", "cases: shards added at once, comma-separated (2 = two recipients, migrations in parallel)")
	fs.IntVar(&cfg.Shards, "shards", 2, "shards before the during phase")
	fs.IntVar(&cfg.ShardMembers, "shard-members", 1, "data members per shard")
	fs.IntVar(&cfg.ConfigMembers, "config-members", 1, "config servers")
	fs.IntVar(&cfg.Routers, "routers", 2, "routers")
	fs.Int64Var(&cfg.Records, "records", 20000, "YCSB records")
	fs.IntVar(&cfg.Threads, "threads", 8, "YCSB client threads over all routers")
	fs.StringVar(&cfg.Workload, "workload", "a", "YCSB core workload: a (50% updates) or b (5% updates)")
	fs.Float64Var(&cfg.Fraction, "fraction", 0.5, "target rate as a fraction of the probe's unthrottled throughput")
	fs.IntVar(&cfg.ChunkSizeMB, "chunk-size-mb", 1, "config.settings chunksize (MB)")
	fs.IntVar(&cfg.ChunksPerShard, "chunks-per-shard", 8, "initial hashed chunks per shard (numInitialChunks / shards)")
	fs.DurationVar(&cfg.RoundInterval, "round-interval", 0, "balancerRoundIntervalMS (default 1s; MongoDB sleeps 10s)")
	fs.DurationVar(&cfg.Probe, "probe", 0, "unthrottled probe (default 5s)")
	fs.DurationVar(&cfg.Before, "before", 0, "before phase (default 20s)")
	fs.DurationVar(&cfg.After, "after", 0, "after phase (default 20s)")
	fs.DurationVar(&cfg.Quiet, "quiet", 0, "balancerCompliant this long ends the during phase (default 3s)")
	fs.DurationVar(&cfg.MaxDuring, "max-during", 0, "bound on the during phase (default 10m)")
	fs.IntVar(&cfg.Runs, "runs", 3, "runs per case (fresh cluster each); medians reported")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "YCSB seed")
	fs.StringVar(&cfg.Dir, "dir", "", "parent directory of the clusters (default a temporary one)")
	fs.StringVar(&cfg.Bin, "bin", "", "relaydb binary for the clusters (default this executable)")
	fs.BoolVar(&cfg.Auth, "auth", false, "start the clusters with a key file and a root user, as relaydb cluster up --auth")
	fs.BoolVar(&cfg.TLS, "tls", false, "start the clusters requiring TLS, as relaydb cluster up --tls")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the cluster directories (data and logs)")
	fs.StringVar(&out, "out", "bench/results", "results directory")
	fs.StringVar(&name, "name", "rebalance", "results file name stem")
	fs.StringVar(&note, "note", "", "a sentence on the run's conditions, printed under the command")
	fs.StringVar(&from, "from", "", "render OUT/NAME.md and the charts again from this JSON report instead of running")
	return cfg, out, name, note, from, experiment.ParseFlags(cmdName, fs, args, func() (err error) {
		cfg.Adds, err = parseInts(adds)
		cfg = cfg.WithDefaults()
		if err != nil {
			return err
		}
		return cfg.Validate()
	})
}

// parseInts reads "1,2".
func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("--add: %q is not a number", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// Write puts OUT/NAME.md, OUT/NAME.json and a chart per case.
func Write(r *Report, dir, name string) ([]string, error) {
	var charts []experiment.File
	for _, k := range r.Cases {
		if s := Chart(k); s != "" {
			charts = append(charts, experiment.File{Suffix: fmt.Sprintf("-add%d.svg", k.Add), Body: s})
		}
	}
	paths, err := experiment.WriteResults(dir, name, Markdown(r), r, charts...)
	if err != nil {
		return paths, fmt.Errorf("rebalance: %w", err)
	}
	return paths, nil
}

// ReadReport reads a JSON report.
func ReadReport(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("rebalance: %w", err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("rebalance: %s: %w", path, err)
	}
	return &r, nil
}

// rerender writes the results of a JSON report again (medians and goal
// recomputed).
func rerender(from, out, name, note string, stdout, stderr io.Writer) int {
	r, err := ReadReport(from)
	var paths []string
	if err == nil {
		if note != "" {
			r.Note = note
		}
		for i := range r.Cases {
			r.Cases[i].Remeasure()
			r.Cases[i].Summarize()
		}
		paths, err = Write(r, out, name)
	}
	return experiment.Finish(cmdName, paths, "", err, nil, stdout, stderr)
}

package shardexp

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/relaydb/relaydb/internal/bench/experiment"
)

// cmdName names the command in its flag set and errors.
const cmdName = "relaydb bench experiment sharding"

// cliOptions are the flags besides Config.
type cliOptions struct {
	out, name, from, note string
	quick                 bool
}

// Main is "relaydb bench experiment sharding [flags]".
func Main(args []string, stdout, stderr io.Writer) int {
	cfg, o, code := parseFlags(args, stderr)
	if code >= 0 {
		return code
	}
	if o.from != "" {
		return rerender(o, stdout, stderr)
	}
	return experiment.Run(cmdName, stdout, stderr, func(ctx context.Context) (*experiment.Outcome, error) {
		r, err := Execute(ctx, cfg, cmdName+" "+strings.Join(args, " "), stderr)
		if r == nil {
			return nil, err
		}
		r.Note = o.note
		paths, werr := Write(r, o.out, o.name)
		return &experiment.Outcome{Paths: paths, WriteErr: werr}, err
	})
}

// parseFlags returns the config and options, or an exit code >= 0 when
// Main should stop.
func parseFlags(args []string, stderr io.Writer) (Config, cliOptions, int) {
	var cfg Config
	var o cliOptions
	var series, workloads, durability, scaleout string
	fs := experiment.NewFlagSet(cmdName, "", stderr)
	fs.StringVar(&series, "series", strings.Join(AllSeries, ","), "tables to run: baseline, durability, topology, scaleout")
	fs.StringVar(&workloads, "workloads", "a,b", "YCSB core workloads (a, b)")
	fs.IntVar(&cfg.Shards, "shards", 2, "shards of the baseline, durability and topology series")
	fs.IntVar(&cfg.Members, "members", 3, "members of a replicated shard in the topology series: N-1 data members + an arbiter")
	fs.IntVar(&cfg.Routers, "routers", 2, "routers; one YCSB client per router")
	fs.Int64Var(&cfg.Records, "records", 0, "records at --shards shards, scaled with the shard count (default 20000; --quick 2000)")
	fs.IntVar(&cfg.Threads, "threads", 0, "client threads at --shards shards over all clients, scaled likewise (default 16; --quick 8)")
	fs.StringVar(&durability, "durability", strings.Join(AllDurability, ","), "durability options: w0 (w:0 j:false), w1j0, w1j1, majority")
	fs.StringVar(&scaleout, "scaleout", "", "shard counts of the scale-out series (default 2,4,8; --quick 2,4)")
	fs.DurationVar(&cfg.Duration, "duration", 0, "length of a run of a cell, whole seconds (default 10s; --quick 4s)")
	fs.DurationVar(&cfg.Warmup, "warmup", 0, "unmeasured workload A on each fresh cluster before its cells (default 5s; --quick 2s; -1s = none)")
	fs.Int64Var(&cfg.Operations, "operations", 0, "operations per cell over all clients (0 = until --duration)")
	fs.IntVar(&cfg.Runs, "runs", 0, "runs per cell, median reported (default 3; --quick 1)")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "YCSB seed of run 1")
	fs.BoolVar(&o.quick, "quick", false, "a smoke run: 2000 records, 8 threads, one 4s run per cell, scale-out 2,4 (explicit flags win)")
	fs.StringVar(&cfg.Dir, "dir", "", "parent directory of the clusters (default a temporary directory)")
	fs.StringVar(&cfg.Bin, "bin", "", "relaydb binary for the clusters (default this executable)")
	fs.BoolVar(&cfg.Auth, "auth", false, "start the clusters with a key file and a root user, as relaydb cluster up --auth")
	fs.BoolVar(&cfg.TLS, "tls", false, "start the clusters requiring TLS, as relaydb cluster up --tls")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the cluster directories (data and logs)")
	fs.StringVar(&o.out, "out", "bench/results", "results directory")
	fs.StringVar(&o.name, "name", "sharding", "results file name stem: NAME.md, NAME.json, NAME.svg")
	fs.StringVar(&o.note, "note", "", "a sentence on the run's conditions (e.g. a busy machine), printed under the command")
	fs.StringVar(&o.from, "from", "", "render NAME.md and the chart again from this JSON report instead of running")
	return cfg, o, experiment.ParseFlags(cmdName, fs, args, func() (err error) {
		cfg.Series, cfg.Workloads, cfg.Durability = ParseList(series), ParseList(workloads), ParseList(durability)
		cfg.Scaleout, err = ParseInts(scaleout)
		if o.quick {
			cfg = cfg.Quick()
		}
		cfg = cfg.WithDefaults()
		if err != nil {
			return err
		}
		return cfg.Validate()
	})
}

// rerender rewrites the results of a JSON report (checks and warnings
// recomputed).
func rerender(o cliOptions, stdout, stderr io.Writer) int {
	r, err := ReadReport(o.from)
	var paths []string
	if err == nil {
		note := r.Note
		if o.note != "" {
			note = o.note
		}
		r = NewReport(r.Config, r.Command, r.Machine, r.Clusters, r.Cells, time.Duration(r.DurationSecs*float64(time.Second)))
		r.Note = note
		paths, err = Write(r, o.out, o.name)
	}
	return experiment.Finish(cmdName, paths, "", err, nil, stdout, stderr)
}

// Execute runs cfg on real clusters and returns the report; the error
// lists failed clusters and cells (the report is complete as far as it
// got). log receives one line per cluster, load and cell.
func Execute(ctx context.Context, cfg Config, command string, log io.Writer) (*Report, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	dir, done, err := experiment.WorkDir(cfg.Dir, "relaydb-shardexp-", cfg.Keep)
	if err != nil {
		return nil, fmt.Errorf("shardexp: %w", err)
	}
	defer done()
	cfg.Dir = dir
	start := time.Now()
	clusters, cells, err := (&Runner{Config: cfg, Log: log}).Run(ctx)
	rep := NewReport(cfg, command, experiment.ThisMachine(experiment.BuildCommit, start), clusters, cells, time.Since(start))
	rep.Config.Dir = "" // a temporary path; not a result
	return rep, err
}

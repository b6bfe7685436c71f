package suite

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/relaydb/relaydb/internal/bench"
	"github.com/relaydb/relaydb/internal/bench/experiment"
)

// BuildCommit is the commit the binary was built from (main.gitCommit);
// empty or "unknown" falls back to the Go build's VCS stamp, then to git.
var BuildCommit string

// cmdName names the command in its flag set and errors.
const cmdName = "relaydb bench suite"

// Main is "relaydb bench suite [flags]".
func Main(args []string, stdout, stderr io.Writer) int {
	var cfg Config
	var threads, workloads, scale string
	var quiet bool
	fs := experiment.NewFlagSet(cmdName, "", stderr)
	fs.StringVar(&cfg.URI, "uri", "", "target mongodb:// URI (default "+bench.DefaultURI+")")
	fs.BoolVar(&cfg.StartServer, "start-server", false, "start this relaydb binary on a free loopback port with a temp dbpath, and stop it afterwards")
	fs.StringVar(&cfg.Binary, "relaydb", "", "relaydb binary for --start-server (default: this executable)")
	fs.StringVar(&cfg.Name, "name", "", "results file name stem (default relaydb-<UTC date>)")
	fs.StringVar(&cfg.OutDir, "out", "bench/results", "results directory")
	fs.Int64Var(&cfg.RecordCount, "recordcount", 100000, "records loaded for the workloads")
	fs.Int64Var(&cfg.OperationCount, "operationcount", 30000, "operations per workload run")
	fs.Int64Var(&cfg.DurabilityRecords, "durability-recordcount", 5000, "records per durability-matrix load")
	fs.StringVar(&threads, "threads", "1,8,32", "comma-separated client thread counts")
	fs.StringVar(&workloads, "workloads", "a,b,c,f", "comma-separated YCSB core workloads")
	fs.Uint64Var(&cfg.Seed, "seed", 0, "random seed (0 = random)")
	fs.BoolVar(&quiet, "q", false, "no status lines during phases")
	fs.StringVar(&scale, "scale", "", "record counts of the scale series (e.g. 100k,1m,10m): each loaded into a fresh node in chunks of 100k, "+
		"then read with workload C; a scale the free disk cannot hold is skipped")
	fs.BoolVar(&cfg.ScaleOnly, "scale-only", false, "run only the scale series")
	code := experiment.ParseFlags(cmdName, fs, args, func() (err error) {
		if cfg.Threads, err = parseInts(threads); err != nil {
			return err
		}
		if cfg.Scale, err = ParseScale(scale); err != nil {
			return err
		}
		if (cfg.StartServer || len(cfg.Scale) > 0) && cfg.Binary == "" {
			cfg.Binary, err = os.Executable()
		}
		return err
	})
	if code >= 0 {
		return code
	}
	cfg.Workloads = strings.Split(workloads, ",")
	cfg.Log = stderr
	cfg.GitCommit = BuildCommit
	if !quiet {
		cfg.Status = stderr
	}
	return experiment.Run(cmdName, stdout, stderr, func(ctx context.Context) (*experiment.Outcome, error) {
		rep, err := Run(ctx, cfg)
		if err != nil {
			return nil, err
		}
		paths, err := Write(rep, cfg.OutDir, cmdName+" "+strings.Join(args, " "))
		return &experiment.Outcome{Paths: paths, WriteErr: err}, nil
	})
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("thread count %q: want a positive integer", f)
		}
		out = append(out, n)
	}
	return out, nil
}

package secexp

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/relaydb/relaydb/internal/bench/experiment"
)

const usage = `Usage: relaydb bench experiment security [flags]

Measures what authentication and TLS cost a single node: per run, one fresh
node per variant (plain, auth, tls, auth+tls), a YCSB load, then workload C;
each variant's throughput is divided by the plain node's of the same run.
Goals (issue #13): auth >= 0.95, TLS >= 0.70 of plain, by the median ratio.
Writes OUT/NAME.md and OUT/NAME.json.

Example:
  relaydb bench experiment security --runs 5 --records 20000 --ops 60000

Flags:
`

// cmdName names the command in its flag set and errors.
const cmdName = "relaydb bench experiment security"

// Main is "relaydb bench experiment security [flags]".
func Main(args []string, stdout, stderr io.Writer) int {
	cfg, out, name, note, code := parseFlags(args, stderr)
	if code >= 0 {
		return code
	}
	return experiment.Run(cmdName, stdout, stderr, func(ctx context.Context) (*experiment.Outcome, error) {
		cfg.Log = stderr
		r, err := Execute(ctx, cfg)
		if r == nil {
			return nil, err
		}
		r.Command = strings.TrimSpace(cmdName + " " + experiment.ShellJoin(args))
		r.Notes = note
		paths, werr := write(r, out, name)
		return &experiment.Outcome{Paths: paths, Text: Markdown(r), WriteErr: werr}, err
	})
}

func parseFlags(args []string, stderr io.Writer) (cfg Config, out, name, note string, code int) {
	var variants string
	fs := experiment.NewFlagSet(cmdName, usage, stderr)
	fs.StringVar(&variants, "variants", strings.Join([]string{Plain, Auth, TLS, AuthTLS}, ","), "variants to measure (plain is always measured)")
	fs.IntVar(&cfg.Runs, "runs", 3, "runs (each measures every variant once)")
	fs.Int64Var(&cfg.Records, "records", 20000, "YCSB records loaded per node")
	fs.Int64Var(&cfg.Ops, "ops", 60000, "workload C operations per node")
	fs.IntVar(&cfg.Threads, "threads", 8, "YCSB client threads")
	fs.Uint64Var(&cfg.Seed, "seed", 0, "YCSB seed (0 = random)")
	fs.StringVar(&cfg.Binary, "bin", "", "relaydb binary to start (default this executable)")
	fs.StringVar(&out, "out", "bench/results", "results directory")
	fs.StringVar(&name, "name", "security", "results file name stem")
	fs.StringVar(&note, "note", "", "a sentence added to the markdown (e.g. what else ran on the machine)")
	if code = experiment.ParseFlags(cmdName, fs, args, nil); code >= 0 {
		return cfg, out, name, note, code
	}
	for _, v := range strings.Split(variants, ",") {
		if v = strings.TrimSpace(v); v != "" {
			cfg.Variants = append(cfg.Variants, v)
		}
	}
	if cfg.Binary == "" {
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", cmdName, err)
			return cfg, "", "", "", 1
		}
		cfg.Binary = exe
	}
	return cfg, out, name, note, -1
}

// write writes NAME.md and NAME.json into dir.
func write(r *Report, dir, name string) ([]string, error) {
	return experiment.WriteResults(dir, name, Markdown(r), r)
}

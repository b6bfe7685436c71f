package secexp

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
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

// Main is "relaydb bench experiment security [flags]".
func Main(args []string, stdout, stderr io.Writer) int {
	cfg, out, name, note, code := parseFlags(args, stderr)
	if code >= 0 {
		return code
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	cfg.Log = stderr
	r, err := Execute(ctx, cfg)
	if r == nil {
		fmt.Fprintf(stderr, "relaydb bench experiment security: %v\n", err)
		return 1
	}
	r.Command = strings.TrimSpace("relaydb bench experiment security " + experiment.ShellJoin(args))
	r.Notes = note
	paths, werr := write(r, out, name)
	return experiment.Finish("relaydb bench experiment security", paths, Markdown(r), err, werr, stdout, stderr)
}

func parseFlags(args []string, stderr io.Writer) (cfg Config, out, name, note string, code int) {
	var variants string
	fs := flag.NewFlagSet("relaydb bench experiment security", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
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
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, "", "", "", 0
		}
		return cfg, "", "", "", 2
	}
	for _, v := range strings.Split(variants, ",") {
		if v = strings.TrimSpace(v); v != "" {
			cfg.Variants = append(cfg.Variants, v)
		}
	}
	if cfg.Binary == "" {
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintf(stderr, "relaydb bench experiment security: %v\n", err)
			return cfg, "", "", "", 1
		}
		cfg.Binary = exe
	}
	return cfg, out, name, note, -1
}

// write writes NAME.md and NAME.json into dir.
func write(r *Report, dir, name string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("results directory: %w", err)
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode report: %w", err)
	}
	md, jsp := filepath.Join(dir, name+".md"), filepath.Join(dir, name+".json")
	if err := os.WriteFile(md, []byte(Markdown(r)), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(jsp, append(js, '\n'), 0o644); err != nil {
		return []string{md}, err
	}
	return []string{md, jsp}, nil
}

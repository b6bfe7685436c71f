package shardfailover

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/relaydb/relaydb/internal/bench/experiment"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
)

const usage = `Usage: relaydb bench experiment shard-failover [flags]

Starts a sharded cluster per mode (rs: 3-member replica-set shards;
single: single-member shards, restarted after the kill), runs YCSB
workload A through every router, kills -trials shard primaries in turn with
kill -9 and reports the client-observed interruption on the killed shard,
the errors the clients saw and whether any acknowledged write was lost.
Writes OUT/NAME.md and OUT/NAME.json.
`

// Main is "relaydb bench experiment shard-failover [flags]".
func Main(args []string, stdout, stderr io.Writer) int {
	cfg, out, name, note, code := parseFlags(args, stderr)
	if code >= 0 {
		return code
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	r, err := Execute(ctx, cfg, stderr)
	if r == nil {
		fmt.Fprintf(stderr, "relaydb bench experiment shard-failover: %v\n", err)
		return 1
	}
	r.Command = strings.TrimSpace("relaydb bench experiment shard-failover " + experiment.ShellJoin(args))
	r.Notes = note
	paths, werr := write(r, out, name)
	return experiment.Finish("relaydb bench experiment shard-failover", paths, Text(r), err, werr, stdout, stderr)
}

// parseFlags returns the config, results dir, name and note, or an exit
// code >= 0 when Main should stop.
func parseFlags(args []string, stderr io.Writer) (cfg Config, out, name, note string, code int) {
	var modes string
	fs := flag.NewFlagSet("relaydb bench experiment shard-failover", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	fs.StringVar(&modes, "modes", ModeReplicaSet+","+ModeSingle, "shard kinds: rs (replica-set shards), single (single-member shards)")
	fs.IntVar(&cfg.Trials, "trials", 3, "kill -9 trials per mode")
	fs.IntVar(&cfg.Shards, "shards", 2, "shards")
	fs.IntVar(&cfg.ShardMembers, "shard-members", 3, "members of a replica-set shard")
	fs.IntVar(&cfg.Routers, "routers", 2, "routers")
	fs.IntVar(&cfg.ConfigMembers, "config-members", 3, "config servers")
	fs.Int64Var(&cfg.RecordCount, "recordcount", 1000, "YCSB records")
	fs.IntVar(&cfg.Threads, "threads", 8, "YCSB client threads")
	fs.DurationVar(&cfg.Settle, "settle", 0, "steady load before each kill (default 3s)")
	fs.DurationVar(&cfg.Tail, "tail", 0, "load measured after recovery (default 1s)")
	fs.Float64Var(&cfg.StallFactor, "stall-factor", 10, "an op longer than this x the pre-kill p99 is stalled")
	fs.DurationVar(&cfg.MinStall, "min-stall", 0, "floor of the stall threshold (default 50ms)")
	fs.DurationVar(&cfg.RestartAfter, "restart-after", 0, "single mode: kill to restart of the member")
	fs.DurationVar(&cfg.TrialTimeout, "trial-timeout", 0, "bound on one trial's recovery (default 2m)")
	fs.DurationVar(&cfg.OpTimeout, "op-timeout", 0, "bound on one client operation (default 30s)")
	fs.Uint64Var(&cfg.Seed, "seed", 0, "YCSB seed (0 = random)")
	fs.StringVar(&cfg.Dir, "dir", "", "parent directory of the clusters (default a temporary one, removed after)")
	fs.StringVar(&cfg.Bin, "bin", "", "relaydb binary for the cluster (default this executable)")
	fs.BoolVar(&cfg.Auth, "auth", false, "start the cluster with a key file and a root user, as relaydb cluster up --auth")
	fs.BoolVar(&cfg.TLS, "tls", false, "start the cluster requiring TLS, as relaydb cluster up --tls")
	fs.StringVar(&out, "out", "bench/results", "results directory")
	fs.StringVar(&name, "name", "shard-failover", "results file name stem")
	fs.StringVar(&note, "note", "", "a sentence added to the markdown (e.g. what else ran on the machine)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, "", "", "", 0
		}
		return cfg, "", "", "", 2
	}
	for _, m := range strings.Split(modes, ",") {
		if m = strings.TrimSpace(m); m != "" {
			cfg.Modes = append(cfg.Modes, m)
		}
	}
	err := cfg.Validate()
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err != nil {
		fmt.Fprintf(stderr, "relaydb bench experiment shard-failover: %v\n", err)
		return cfg, "", "", "", 2
	}
	return cfg, out, name, note, -1
}

// write puts OUT/NAME.md and OUT/NAME.json and returns their paths.
func write(r *Report, out, name string) ([]string, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("shardfailover: %w", err)
	}
	md := filepath.Join(out, name+".md")
	if err := os.WriteFile(md, []byte(Markdown(r)), 0o644); err != nil {
		return nil, fmt.Errorf("shardfailover: %w", err)
	}
	js := filepath.Join(out, name+".json")
	f, err := os.Create(js)
	if err != nil {
		return []string{md}, fmt.Errorf("shardfailover: %w", err)
	}
	if err := WriteJSON(f, r); err != nil {
		f.Close()
		return []string{md}, fmt.Errorf("shardfailover: write %s: %w", js, err)
	}
	return []string{md, js}, f.Close()
}

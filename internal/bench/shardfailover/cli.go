package shardfailover

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/relaydb/relaydb/internal/bench/experiment"
)

const usage = `Usage: relaydb bench experiment shard-failover [flags]

Starts a sharded cluster per mode (rs: 3-member replica-set shards;
single: single-member shards, restarted after the kill), runs YCSB
workload A through every router, kills -trials shard primaries in turn with
kill -9 and reports the client-observed interruption on the killed shard,
the errors the clients saw and whether any acknowledged write was lost.
Writes OUT/NAME.md and OUT/NAME.json.
`

// cmdName names the command in its flag set and errors.
const cmdName = "relaydb bench experiment shard-failover"

// Main is "relaydb bench experiment shard-failover [flags]".
func Main(args []string, stdout, stderr io.Writer) int {
	cfg, out, name, note, code := parseFlags(args, stderr)
	if code >= 0 {
		return code
	}
	return experiment.Run(cmdName, stdout, stderr, func(ctx context.Context) (*experiment.Outcome, error) {
		r, err := Execute(ctx, cfg, stderr)
		if r == nil {
			return nil, err
		}
		r.Command = strings.TrimSpace(cmdName + " " + experiment.ShellJoin(args))
		r.Notes = note
		paths, werr := write(r, out, name)
		return &experiment.Outcome{Paths: paths, Text: Text(r), WriteErr: werr}, err
	})
}

// parseFlags returns the config, results dir, name and note, or an exit
// code >= 0 when Main should stop.
func parseFlags(args []string, stderr io.Writer) (cfg Config, out, name, note string, code int) {
	var modes string
	fs := experiment.NewFlagSet(cmdName, usage, stderr)
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
	return cfg, out, name, note, experiment.ParseFlags(cmdName, fs, args, func() error {
		for _, m := range strings.Split(modes, ",") {
			if m = strings.TrimSpace(m); m != "" {
				cfg.Modes = append(cfg.Modes, m)
			}
		}
		return cfg.Validate()
	})
}

// write puts OUT/NAME.md and OUT/NAME.json and returns their paths.
func write(r *Report, out, name string) ([]string, error) {
	paths, err := experiment.WriteResults(out, name, Markdown(r), r)
	if err != nil {
		return paths, fmt.Errorf("shardfailover: %w", err)
	}
	return paths, nil
}

package failover

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/relaydb/relaydb/internal/bench/experiment"
)

const usage = `Usage: relaydb bench failover [flags]

Starts a fresh 3-member replica set, kills the primary with kill -9 -trials
times under continuous w:"majority" writers, reports election time, the
client-observed write unavailability and rejoin time (median/min/max and
every trial), then the secondaries' replication lag under YCSB workload A.
`

// cmdName names the command in its flag set and errors.
const cmdName = "relaydb bench failover"

// Main is "relaydb bench failover [flags]".
func Main(args []string, stdout, stderr io.Writer) int {
	var cfg Config
	var jsonOut bool
	var md string
	fs := experiment.NewFlagSet(cmdName, usage, stderr)
	fs.IntVar(&cfg.Trials, "trials", 10, "kill -9 failovers")
	fs.IntVar(&cfg.Writers, "writers", 2, "writer goroutines")
	fs.StringVar(&cfg.Dir, "dir", "", "cluster directory (default: a temporary one, removed after)")
	fs.StringVar(&cfg.Bin, "bin", "", "relaydb binary for the members (default: this executable)")
	fs.BoolVar(&cfg.Auth, "auth", false, "start the sets with a key file and a root user, as relaydb cluster up --auth")
	fs.BoolVar(&cfg.TLS, "tls", false, "start the sets requiring TLS, as relaydb cluster up --tls")
	fs.DurationVar(&cfg.Settle, "settle", 0, "steady writing before each kill (default 2s)")
	fs.DurationVar(&cfg.StallAfter, "stall", 0, "a write slower than this counts as stalled (default 500ms)")
	fs.DurationVar(&cfg.LagDuration, "lag", 0, "workload A duration of the lag run (default 20s; negative skips it)")
	fs.IntVar(&cfg.LagThreads, "lag-threads", 0, "YCSB threads of the lag run (default 8)")
	fs.StringVar(&cfg.LagW, "lag-w", "", "write concern w of the lag run (default 1)")
	fs.BoolVar(&jsonOut, "json", false, "print the report as JSON")
	fs.StringVar(&md, "md", "", "also write the markdown report to this file (e.g. bench/results/failover.md)")
	if code := experiment.ParseFlags(cmdName, fs, args, nil); code >= 0 {
		return code
	}
	return experiment.Run(cmdName, stdout, stderr, func(ctx context.Context) (*experiment.Outcome, error) {
		r, err := Execute(ctx, cfg, stderr)
		if r == nil {
			return nil, err
		}
		r.Command = cmdName + " " + strings.Join(args, " ")
		return &experiment.Outcome{WriteErr: output(r, jsonOut, md, stdout)}, err
	})
}

func output(r *Report, jsonOut bool, md string, stdout io.Writer) error {
	var err error
	if jsonOut {
		err = WriteJSON(stdout, r)
	} else {
		err = WriteText(stdout, r)
	}
	if err != nil || md == "" {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(md), 0o755); err != nil {
		return fmt.Errorf("failover: %w", err)
	}
	f, err := os.Create(md)
	if err != nil {
		return fmt.Errorf("failover: %w", err)
	}
	if err := WriteMarkdown(f, r); err != nil {
		f.Close()
		return fmt.Errorf("failover: write %s: %w", md, err)
	}
	return f.Close()
}

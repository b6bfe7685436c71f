package soak

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/relaydb/relaydb/internal/bench/experiment"
)

const usage = `Usage: relaydb bench soak [flags]

Starts relaydb (one server, or --data N members), runs YCSB-like inserts,
reads and updates, the crash harness's DDL and hostile connections for
--duration, kills it with SIGKILL and restarts it every --kill-interval,
checks every acknowledged op after each restart and prints a markdown
report. Exits 1 if an acknowledged op was lost, RSS exceeded --rss-limit
or relaydb tool verify failed. Not part of CI.
`

// cmdName names the command in its flag set and errors.
const cmdName = "relaydb bench soak"

// Main is "relaydb bench soak [flags]".
func Main(args []string, stdout, stderr io.Writer) int {
	var cfg Config
	var rss, md string
	var quiet bool
	fs := experiment.NewFlagSet(cmdName, usage, stderr)
	fs.DurationVar(&cfg.Duration, "duration", 0, "how long to run (default 30m)")
	fs.DurationVar(&cfg.KillInterval, "kill-interval", 0, "kill -9 and restart every (default 2m)")
	fs.StringVar(&rss, "rss-limit", "1GiB", "bound on the server's RSS (bytes, or with KiB/MiB/GiB)")
	fs.IntVar(&cfg.Threads, "threads", 0, "YCSB worker threads (default 4)")
	fs.IntVar(&cfg.Records, "records", 0, "YCSB records at most (default 50000)")
	fs.DurationVar(&cfg.Hostile, "hostile-interval", 0, "one hostile connection every (default 100ms)")
	fs.IntVar(&cfg.Data, "data", 0, "0: one server; N: an N-member replica set")
	fs.StringVar(&cfg.Bin, "bin", "", "relaydb binary to run (default: this executable)")
	fs.StringVar(&cfg.Dir, "dir", "", "data directory, kept (default: a temporary one, removed)")
	fs.Uint64Var(&cfg.Seed, "seed", 0, "random seed (default: time)")
	fs.StringVar(&md, "md", "", "also write the markdown report to this file")
	fs.BoolVar(&quiet, "q", false, "no progress lines on stderr")
	code := experiment.ParseFlags(cmdName, fs, args, func() (err error) {
		cfg.RSSLimit, err = parseSize(rss)
		return err
	})
	if code >= 0 {
		return code
	}
	if !quiet {
		cfg.Log = stderr
	}
	return experiment.Run(cmdName, stdout, stderr, func(ctx context.Context) (*experiment.Outcome, error) {
		r, err := Run(ctx, cfg)
		if r == nil {
			return nil, err
		}
		r.Command = cmdName + " " + strings.Join(args, " ")
		werr := WriteMarkdown(stdout, r)
		if md != "" && werr == nil {
			f, ferr := os.Create(md)
			if werr = ferr; ferr == nil {
				werr = errors.Join(WriteMarkdown(f, r), f.Close())
			}
		}
		return &experiment.Outcome{WriteErr: werr, Failed: !r.OK()}, err
	})
}

// parseSize reads "1073741824", "512MiB", "1GiB", "64KiB" (also MB/GB as
// the binary units).
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = v, u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("--rss-limit %q: want a positive size such as 1GiB", s)
	}
	return int64(n * float64(mult)), nil
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/relaydb/relaydb/internal/cluster"
)

const clusterUsage = `Usage:
  relaydb cluster up --dir DIR --data N [--name rs0] [--arbiter] [--hidden K]
                     [--delayed K --delay SECS] [--readonly K] [--base-port P]
                     [--chaining true|false|auto] [--bin PATH] [-- serve args...]
  relaydb cluster up --dir DIR --shards N [--shard-members M] [--shard-arbiter]
                     [--config-members C] [--routers R] [--base-port P] [--bin PATH]
  relaydb cluster add-shard    --dir DIR [--members M] [--arbiter]
  relaydb cluster remove-shard --dir DIR --shard NAME [--timeout 10m]
  relaydb cluster status  --dir DIR
  relaydb cluster down    --dir DIR
  relaydb cluster kill    --dir DIR MEMBER   (SIGKILL; MEMBER is m0, m1, ... or primary)
  relaydb cluster restart --dir DIR MEMBER

'up' starts a local replica set on 127.0.0.1 (members are detached and
outlive the command), initiates it, waits for a primary and prints the
connection string on stdout. With --shards it starts a sharded cluster
instead: a config server replica set (C members, default 3), N shard
replica sets (M members each, default 3), R routers (default 1), adds the
shards, and prints a connection string naming every router.
'add-shard' starts one more shard replica set for a sharded cluster (as
its shards unless told) and adds it; 'remove-shard' drains a shard
(removeShard, movePrimary of its databases), waits until it is removed
and stops its processes.
`

// clusterMain runs `relaydb cluster ...` and returns the exit code.
func clusterMain(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(os.Stderr, clusterUsage)
		if len(args) == 0 {
			return exitBadOptions
		}
		return exitOK
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch args[0] {
	case "up":
		if wantsShards(args[1:]) {
			err = shardedUp(ctx, args[1:], os.Stdout, os.Stderr)
		} else {
			err = clusterUp(ctx, args[1:], os.Stdout, os.Stderr)
		}
	case "status":
		err = clusterStatus(ctx, args[1:], os.Stdout)
	case "down":
		err = clusterDown(ctx, args[1:], os.Stderr)
	case "kill", "restart":
		err = clusterMemberOp(ctx, args[0], args[1:], os.Stderr)
	case "add-shard":
		err = shardedAddShard(ctx, args[1:], os.Stdout, os.Stderr)
	case "remove-shard":
		err = shardedRemoveShard(ctx, args[1:], os.Stderr)
	default:
		fmt.Fprintf(os.Stderr, "relaydb cluster: unknown command %q\n%s", args[0], clusterUsage)
		return exitBadOptions
	}
	var ue usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(os.Stderr, "relaydb cluster %s: %v\n", args[0], err)
		return exitBadOptions
	default:
		fmt.Fprintf(os.Stderr, "relaydb cluster %s: %v\n", args[0], err)
		return exitError
	}
}

// usageError marks a bad command line (exit code 2).
type usageError struct{ error }

// parseUpArgs turns `cluster up` arguments into a Spec.
// Help of cluster up's security flags.
const (
	authFlagHelp = "generate a key file, require authentication everywhere and create a root user \"admin\" (the printed URI holds its password)"
	tlsFlagHelp  = "generate a local CA and certificates and require TLS between every process and client (the printed URI names the files)"
)

func parseUpArgs(args []string) (cluster.Spec, error) {
	var s cluster.Spec
	fs := flag.NewFlagSet("relaydb cluster up", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&s.Name, "name", "rs0", "replica set name")
	fs.StringVar(&s.Dir, "dir", "", "cluster directory (required)")
	fs.IntVar(&s.Data, "data", 0, "electable data members (required)")
	fs.BoolVar(&s.Arbiter, "arbiter", false, "add an arbiter")
	fs.IntVar(&s.Hidden, "hidden", 0, "hidden priority-0 voting members")
	fs.IntVar(&s.Delayed, "delayed", 0, "delayed hidden non-voting members")
	fs.IntVar(&s.DelaySecs, "delay", 0, "secondaryDelaySecs of delayed members (default 3600)")
	fs.IntVar(&s.ReadOnly, "readonly", 0, "read-only (priority 0, votes 0) members")
	fs.IntVar(&s.BasePort, "base-port", 0, "first port (default: free ports)")
	fs.StringVar(&s.Chaining, "chaining", "auto", "auto (relaydb's default), true (MongoDB's) or false")
	fs.StringVar(&s.Bin, "bin", "", "relaydb binary (default: this one)")
	fs.BoolVar(&s.Auth, "auth", false, authFlagHelp)
	fs.BoolVar(&s.TLS, "tls", false, tlsFlagHelp)
	timeout := fs.Duration("timeout", 30*time.Second, "wait for a primary at most this long")
	if err := fs.Parse(args); err != nil {
		return s, flagError(fs, err)
	}
	s.ExtraArgs = fs.Args()
	if i := len(args) - fs.NArg(); fs.NArg() > 0 && (i == 0 || args[i-1] != "--") {
		return s, usageError{fmt.Errorf("unexpected argument %q (serve arguments go after --)", fs.Arg(0))}
	}
	s.PrimaryTimeout = *timeout
	if err := s.Validate(); err != nil {
		return s, usageError{err}
	}
	return s, nil
}

func clusterUp(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	s, err := parseUpArgs(args)
	if err != nil {
		return err
	}
	c, err := cluster.Up(ctx, s)
	if err != nil {
		return err
	}
	p, err := c.Primary(ctx)
	if err == nil {
		fmt.Fprintf(stderr, "replica set %s is up in %s; primary %s (%s)\n", s.Name, s.Dir, p.Name, p.Host)
	}
	printMembers(stderr, c)
	fmt.Fprintln(stdout, c.URI())
	return nil
}

func printMembers(w io.Writer, c *cluster.Cluster) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MEMBER\tROLE\tHOST\tPID\tLOG")
	for _, m := range c.Members() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", m.Name, m.Role, m.Host, m.PID, m.LogPath)
	}
	tw.Flush()
}

// parseDirArgs reads --dir and up to maxPos positional arguments, in any
// order.
func parseDirArgs(cmd string, args []string, maxPos int) (string, []string, error) {
	fs := flag.NewFlagSet("relaydb cluster "+cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("dir", "", "cluster directory (required)")
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return "", nil, flagError(fs, err)
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch {
	case *dir == "":
		return "", nil, usageError{errors.New("--dir is required")}
	case len(pos) > maxPos:
		return "", nil, usageError{fmt.Errorf("unexpected arguments %s", strings.Join(pos[maxPos:], " "))}
	}
	return *dir, pos, nil
}

func clusterStatus(ctx context.Context, args []string, w io.Writer) error {
	dir, _, err := parseDirArgs("status", args, 0)
	if err != nil {
		return err
	}
	if cluster.IsSharded(dir) {
		return shardedStatus(ctx, dir, w)
	}
	c, err := cluster.Load(dir)
	if err != nil {
		return err
	}
	st := c.Status(ctx)
	printStatus(w, c, st)
	if st.From == "" {
		return fmt.Errorf("no member answered replSetGetStatus: %s", st.Err)
	}
	return nil
}

func printStatus(w io.Writer, c *cluster.Cluster, st cluster.Status) {
	fmt.Fprintf(w, "replica set %s  %s\n", st.Set, c.URI())
	if st.From != "" {
		fmt.Fprintf(w, "replSetGetStatus from %s\n", st.From)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MEMBER\tROLE\tHOST\tPID\tPROCESS\tSTATE\tHEALTH\tSYNC SOURCE\tLAG")
	for _, m := range st.Members {
		proc := "down"
		if m.Alive {
			proc = "running"
		}
		state, lag := m.State, fmt.Sprintf("%.0fs", m.LagSecs)
		if state == "" {
			state, lag = "?", "-"
		}
		if m.Role == cluster.RoleArbiter {
			lag = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%g\t%s\t%s\n", m.Name, m.Role, m.Host, m.PID, proc,
			state, m.Health, orDash(m.SyncSource), lag)
	}
	tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func clusterDown(ctx context.Context, args []string, w io.Writer) error {
	dir, _, err := parseDirArgs("down", args, 0)
	if err != nil {
		return err
	}
	if cluster.IsSharded(dir) {
		return shardedDown(ctx, dir, w)
	}
	c, err := cluster.Load(dir)
	if err != nil {
		return err
	}
	if err := c.Down(ctx); err != nil {
		return err
	}
	fmt.Fprintf(w, "replica set %s in %s stopped\n", c.Spec().Name, dir)
	return nil
}

func clusterMemberOp(ctx context.Context, op string, args []string, w io.Writer) error {
	dir, pos, err := parseDirArgs(op, args, 1)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{errors.New("a MEMBER (m0, m1, ... or primary) is required")}
	}
	c, err := cluster.Load(dir)
	if err != nil {
		return err
	}
	var m *cluster.Member
	if op == "kill" {
		m, err = c.Kill(ctx, pos[0])
	} else {
		m, err = c.Restart(ctx, pos[0])
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %s %s (%s, pid %d)\n", op, m.Name, m.Role, m.Host, m.PID)
	return nil
}

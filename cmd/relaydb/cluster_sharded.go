package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cluster"
)

// wantsShards reports whether `cluster up` arguments ask for a sharded
// cluster.
func wantsShards(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--shards" || a == "-shards" || strings.HasPrefix(a, "--shards=") || strings.HasPrefix(a, "-shards=") {
			return true
		}
	}
	return false
}

// parseShardedArgs turns `cluster up --shards N ...` into a ShardedSpec.
func parseShardedArgs(args []string) (cluster.ShardedSpec, error) {
	var s cluster.ShardedSpec
	fs := flag.NewFlagSet("relaydb cluster up", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&s.Dir, "dir", "", "cluster directory (required)")
	fs.IntVar(&s.Shards, "shards", 0, "shard replica sets")
	fs.IntVar(&s.ShardMembers, "shard-members", 3, "data members per shard")
	fs.BoolVar(&s.ShardArbiter, "shard-arbiter", false, "add an arbiter to every shard")
	fs.IntVar(&s.ConfigMembers, "config-members", 3, "config server members")
	fs.IntVar(&s.Routers, "routers", 1, "routers")
	fs.IntVar(&s.BasePort, "base-port", 0, "first port (default: free ports)")
	fs.StringVar(&s.Bin, "bin", "", "relaydb binary (default: this one)")
	fs.BoolVar(&s.Auth, "auth", false, authFlagHelp)
	fs.BoolVar(&s.TLS, "tls", false, tlsFlagHelp)
	timeout := fs.Duration("timeout", 30*time.Second, "wait for each replica set's primary at most this long")
	if err := fs.Parse(args); err != nil {
		return s, flagError(fs, err)
	}
	s.ExtraArgs = fs.Args()
	s.PrimaryTimeout = *timeout
	if err := s.Validate(); err != nil {
		return s, usageError{err}
	}
	return s, nil
}

func shardedUp(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	s, err := parseShardedArgs(args)
	if err != nil {
		return err
	}
	sc, err := cluster.UpSharded(ctx, s)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "sharded cluster is up in %s: %d shards, config servers %s\n", sc.Spec().Dir, len(sc.Shards), sc.ConfigDB())
	printSharded(stderr, sc)
	fmt.Fprintln(stdout, sc.URI())
	return nil
}

func printSharded(w io.Writer, sc *cluster.Sharded) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PART\tMEMBER\tROLE\tHOST\tPID\tLOG")
	for _, r := range sc.Routers {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", "routers", r.Name, r.Role, r.Host, r.PID, r.LogPath)
	}
	for _, c := range append([]*cluster.Cluster{sc.Config}, sc.Shards...) {
		for _, m := range c.Members() {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", c.Spec().Name, m.Name, m.Role, m.Host, m.PID, m.LogPath)
		}
	}
	tw.Flush()
}

func shardedStatus(ctx context.Context, dir string, w io.Writer) error {
	sc, err := cluster.LoadSharded(dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "sharded cluster %s\nrouters:", sc.URI())
	for _, r := range sc.Routers {
		state := "down"
		if sc.RouterAlive(r) {
			state = "running"
		}
		fmt.Fprintf(w, " %s (%s, %s)", r.Name, r.Host, state)
	}
	fmt.Fprintln(w)
	var failed []string
	for _, c := range append([]*cluster.Cluster{sc.Config}, sc.Shards...) {
		st := c.Status(ctx)
		printStatus(w, c, st)
		if st.From == "" {
			failed = append(failed, c.Spec().Name)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("no member of %s answered replSetGetStatus", strings.Join(failed, ", "))
	}
	pl, err := sc.Placement(ctx, maxStatusCollections)
	if err != nil {
		return err
	}
	printPlacement(w, pl)
	if bal, err := sc.Balancer(ctx); err == nil {
		fmt.Fprintf(w, "balancer: mode %s, in round %v, %d rounds, last error %q, last moves %v\n",
			bal.Mode, bal.InRound, bal.Rounds, bal.LastError, bal.LastMoves)
	}
	return nil
}

// maxStatusCollections bounds the sharded collections status lists.
const maxStatusCollections = 200

// printPlacement prints each database's primary shard and each sharded
// collection's key and chunks per shard.
func printPlacement(w io.Writer, pl cluster.Placement) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DATABASE\tPRIMARY SHARD")
	for _, d := range pl.Databases {
		fmt.Fprintf(tw, "%s\t%s\n", d.Name, d.Primary)
	}
	tw.Flush()
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SHARDED COLLECTION\tKEY\tCHUNKS\tCHUNKS PER SHARD")
	for _, c := range pl.Collections {
		total, per := 0, make([]string, 0, len(c.Chunks))
		for _, s := range c.ShardNames() {
			total += c.Chunks[s]
			per = append(per, fmt.Sprintf("%s=%d", s, c.Chunks[s]))
		}
		key, _ := bson.MarshalExtJSON(c.Key, false, false)
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", c.NS, key, total, strings.Join(per, " "))
	}
	tw.Flush()
}

func shardedDown(ctx context.Context, dir string, w io.Writer) error {
	sc, err := cluster.LoadSharded(dir)
	if err != nil {
		return err
	}
	if err := sc.Down(ctx); err != nil {
		return err
	}
	fmt.Fprintf(w, "sharded cluster in %s stopped\n", dir)
	return nil
}

// addShardArgs are `cluster add-shard` arguments.
type addShardArgs struct {
	dir     string
	members int
	arbiter *bool // nil: as up's shards
}

func parseAddShardArgs(args []string) (addShardArgs, error) {
	var a addShardArgs
	fs := flag.NewFlagSet("relaydb cluster add-shard", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&a.dir, "dir", "", "cluster directory (required)")
	fs.IntVar(&a.members, "members", 0, "data members of the new shard (default: as the cluster's shards)")
	arbiter := fs.Bool("arbiter", false, "add an arbiter (default: as the cluster's shards)")
	if err := fs.Parse(args); err != nil {
		return a, flagError(fs, err)
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "arbiter" {
			a.arbiter = arbiter
		}
	})
	switch {
	case fs.NArg() > 0:
		return a, usageError{fmt.Errorf("unexpected arguments %s", strings.Join(fs.Args(), " "))}
	case a.dir == "":
		return a, usageError{fmt.Errorf("--dir is required")}
	case a.members < 0:
		return a, usageError{fmt.Errorf("--members must be at least 1, got %d", a.members)}
	}
	return a, nil
}

// shardedAddShard starts a new shard replica set and adds it.
func shardedAddShard(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a, err := parseAddShardArgs(args)
	if err != nil {
		return err
	}
	sc, err := cluster.LoadSharded(a.dir)
	if err != nil {
		return err
	}
	c, err := sc.AddShard(ctx, a.members, a.arbiter)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "started replica set %s (%d members) and added it as shard %s through a router\n",
		c.Spec().Name, len(c.Members()), c.Spec().Name)
	printSharded(stderr, sc)
	fmt.Fprintln(stdout, c.Spec().Name)
	return nil
}

// removeShardArgs are `cluster remove-shard` arguments.
type removeShardArgs struct {
	dir, shard string
	timeout    time.Duration
}

func parseRemoveShardArgs(args []string) (removeShardArgs, error) {
	var a removeShardArgs
	fs := flag.NewFlagSet("relaydb cluster remove-shard", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&a.dir, "dir", "", "cluster directory (required)")
	fs.StringVar(&a.shard, "shard", "", "shard to remove (required)")
	fs.DurationVar(&a.timeout, "timeout", 10*time.Minute, "wait for the draining at most this long")
	if err := fs.Parse(args); err != nil {
		return a, flagError(fs, err)
	}
	switch {
	case fs.NArg() > 0:
		return a, usageError{fmt.Errorf("unexpected arguments %s", strings.Join(fs.Args(), " "))}
	case a.dir == "" || a.shard == "":
		return a, usageError{fmt.Errorf("--dir and --shard are required")}
	case a.timeout <= 0:
		return a, usageError{fmt.Errorf("--timeout must be positive")}
	}
	return a, nil
}

// shardedRemoveShard drains a shard, moves its databases' primaries,
// waits for removeShard's "completed" and stops the shard's processes.
func shardedRemoveShard(ctx context.Context, args []string, stderr io.Writer) error {
	a, err := parseRemoveShardArgs(args)
	if err != nil {
		return err
	}
	sc, err := cluster.LoadSharded(a.dir)
	if err != nil {
		return err
	}
	start := time.Now()
	report := func(s string) { fmt.Fprintf(stderr, "%6.1fs  %s\n", time.Since(start).Seconds(), s) }
	if err := sc.RemoveShard(ctx, a.shard, a.timeout, report); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "removed shard %s from the cluster in %s in %v\n", a.shard, a.dir, time.Since(start).Round(time.Millisecond))
	return nil
}

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// helpEntry is one node of the subcommand tree: its path after "relaydb",
// a one-line summary and an example. Every subcommand is here, so that
// "relaydb --help" lists them all and "relaydb PATH --help" can add the
// example to the flags the subcommand prints (help_test.go walks it).
type helpEntry struct {
	path, summary, example string
	// ownHelp: the subcommand prints its own usage and flags for --help
	// (leaves, and the groups with a usage text of their own).
	ownHelp bool
}

// moreHelp are further help invocations of a node: "cluster up" takes
// the replica-set flags, or the sharded-cluster ones with --shards.
var moreHelp = map[string][]string{"cluster up": {"cluster", "up", "--shards", "1", "--help"}}

var helpTree = []helpEntry{
	{"serve", "run a data node (like mongod): standalone, replica-set member or shard", "relaydb serve --dbpath ./data --port 27017", true},
	{"router", "run a query router of a sharded cluster (like mongos)", "relaydb router --configdb cfg/127.0.0.1:27019 --port 27017", true},
	{"cluster", "start and stop local replica sets and sharded clusters on loopback", "relaydb cluster up --dir /tmp/rs0 --data 3", true},
	{"cluster up", "start a replica set (--data N) or a sharded cluster (--shards N)", "relaydb cluster up --dir /tmp/sc --shards 2 --routers 2", true},
	{"cluster add-shard", "start one more shard replica set and add it", "relaydb cluster add-shard --dir /tmp/sc --members 3", true},
	{"cluster remove-shard", "drain a shard, remove it and stop its processes", "relaydb cluster remove-shard --dir /tmp/sc --shard sh1", true},
	{"cluster status", "members, states, sync sources and lag", "relaydb cluster status --dir /tmp/rs0", true},
	{"cluster down", "stop every process of a local cluster", "relaydb cluster down --dir /tmp/rs0", true},
	{"cluster kill", "SIGKILL one member (m0, m1, ... or primary)", "relaydb cluster kill --dir /tmp/rs0 primary", true},
	{"cluster restart", "restart one member", "relaydb cluster restart --dir /tmp/rs0 m1", true},
	{"bench", "YCSB-compatible workloads and the reference experiments", "relaydb bench run -workload a -uri mongodb://127.0.0.1:27017/ycsb", true},
	{"bench load", "insert recordcount records (YCSB -load)", "relaydb bench load -workload a -uri mongodb://127.0.0.1:27017/ycsb -p recordcount=100000", true},
	{"bench run", "run operationcount operations (YCSB -t)", "relaydb bench run -workload a -uri mongodb://127.0.0.1:27017/ycsb -threads 16", true},
	{"bench suite", "the standard suite; writes bench/results/", "relaydb bench suite --start-server --workloads a,c", true},
	{"bench experiment", "the reference experiments (one per NAME below)", "relaydb bench experiment chaining --help", true},
	{"bench experiment chaining", "chained replication: nodes x w x chaining mode", "relaydb bench experiment chaining --out /tmp/exp", true},
	{"bench experiment sharding", "sharded throughput by shard count", "relaydb bench experiment sharding --out /tmp/exp", true},
	{"bench experiment shard-failover", "a shard primary killed under load", "relaydb bench experiment shard-failover --out /tmp/exp", true},
	{"bench experiment rebalance", "the balancer moving chunks under load", "relaydb bench experiment rebalance --out /tmp/exp", true},
	{"bench experiment security", "cost of auth and TLS against plain", "relaydb bench experiment security --out /tmp/exp", true},
	{"bench failover", "kill -9 failover times and replication lag of a 3-member set", "relaydb bench failover --trials 5", true},
	{"bench soak", "mixed load, DDL, hostile connections and periodic kill -9", "relaydb bench soak --duration 10m", true},
	{"tool", "offline tools for a data directory", "relaydb tool verify --dbpath ./data", false},
	{"tool verify", "check a data directory offline (catalog, documents, indexes, oplog)", "relaydb tool verify --dbpath ./data", true},
	{"version", "print the version", "relaydb version", false},
}

// isHelpFlag reports whether s asks for help.
func isHelpFlag(s string) bool { return s == "-h" || s == "-help" || s == "--help" }

// helpRequest returns the tree node args name (the longest path of
// leading words) when args ask for help (a help flag before any "--", or
// "help" as the first word); ok is false otherwise.
func helpRequest(args []string) (e helpEntry, ok bool) {
	if len(args) > 0 && args[0] == "help" {
		args, ok = args[1:], true
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		ok = ok || isHelpFlag(a)
	}
	if !ok {
		return helpEntry{}, false
	}
	e = rootHelp
	var words []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			break
		}
		words = append(words, a)
		if n, found := findHelp(strings.Join(words, " ")); found {
			e = n
		}
	}
	return e, true
}

func findHelp(path string) (helpEntry, bool) {
	for _, e := range helpTree {
		if e.path == path {
			return e, true
		}
	}
	return helpEntry{}, false
}

// printHelp prints e's help to stdout and returns the exit code: the
// subcommand's own usage and flags (its stderr sent to stdout), the
// subcommands under e, and the example. e.path "" is relaydb itself.
func printHelp(e helpEntry) int {
	w := os.Stdout
	if e.ownHelp {
		stderr := os.Stderr
		os.Stderr = os.Stdout
		code := dispatch(append(strings.Fields(e.path), "--help"))
		if more := moreHelp[e.path]; more != nil && code == exitOK {
			fmt.Fprintf(w, "\nWith --shards (a sharded cluster):\n")
			code = dispatch(more)
		}
		os.Stderr = stderr
		if code != exitOK {
			return code
		}
	} else {
		printHeader(w, e)
	}
	printCommands(w, e.path)
	fmt.Fprintf(w, "\nExample:\n  %s\n", e.example)
	if e.path == "bench experiment" {
		return printExperimentFlags(w)
	}
	return exitOK
}

// rootHelp is relaydb's own node: every subcommand is under it.
var rootHelp = helpEntry{summary: "One binary for every role; each command below takes --help.", example: "relaydb serve --dbpath ./data"}

// printHeader is the usage of a node that prints none of its own.
func printHeader(w io.Writer, e helpEntry) {
	usage := strings.TrimSpace("relaydb " + e.path)
	if hasChildren(e.path) {
		usage += " COMMAND [flags]"
	}
	fmt.Fprintf(w, "relaydb %s — a MongoDB-compatible document database\n\nUsage: %s\n\n%s\n", Version, usage, e.summary)
}

func hasChildren(path string) bool {
	for _, e := range helpTree {
		if path == "" || strings.HasPrefix(e.path, path+" ") {
			return true
		}
	}
	return false
}

// printCommands lists the tree under path (every level), if any.
func printCommands(w io.Writer, path string) {
	var lines []string
	for _, e := range helpTree {
		if path == "" || strings.HasPrefix(e.path, path+" ") {
			lines = append(lines, fmt.Sprintf("  %-32s %s", e.path, e.summary))
		}
	}
	if len(lines) > 0 {
		fmt.Fprintf(w, "\nCommands (relaydb COMMAND --help for its flags and an example):\n%s\n", strings.Join(lines, "\n"))
	}
}

// printExperimentFlags prints each experiment's flags (bench experiment
// --help lists them all).
func printExperimentFlags(w io.Writer) int {
	for _, e := range helpTree {
		if !strings.HasPrefix(e.path, "bench experiment ") {
			continue
		}
		fmt.Fprintf(w, "\n=== %s ===\n", e.path)
		if code := printHelp(e); code != exitOK {
			return code
		}
	}
	return exitOK
}

// flagError is a flag set's parse error as a usageError; for -h/--help it
// prints the set's flags to stderr first (the cluster commands' flag sets
// are silent otherwise) and wraps flag.ErrHelp (exit 0).
func flagError(fs *flag.FlagSet, err error) error {
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(os.Stderr, "Usage of %s:\n", fs.Name())
		fs.SetOutput(os.Stderr)
		fs.PrintDefaults()
	}
	return usageError{err}
}

// Unwrap lets errors.Is see a usageError's flag.ErrHelp.
func (u usageError) Unwrap() error { return u.error }

// Command relaydb is the single binary for every role: a data node (serve),
// offline tools (tool), and later the router, local clusters and benchmarks.
package main

import (
	"fmt"
	"os"
)

// Version is the MongoDB version relaydb is compatible with; gitCommit is
// set by the build (-ldflags "-X main.gitCommit=...").
const Version = "7.0.0"

var gitCommit = "unknown"

// Exit codes, following mongod's where one exists.
const (
	exitOK          = 0
	exitError       = 1
	exitBadOptions  = 2
	exitNetError    = 48  // mongod's EXIT_NET_ERROR: the port is taken
	exitDBPathInUse = 100 // mongod exits 100 on DBPathInUse
)

func usage() {
	fmt.Fprintf(os.Stderr, `relaydb %s — a MongoDB-compatible document database

Usage:
  relaydb serve [flags]          run a data node (like mongod); --help for flags
  relaydb router --configdb cfg/h:p --port N   run a query router (like mongos)
  relaydb cluster up|status|down|kill|restart   local replica sets on loopback
  relaydb bench load|run|suite    YCSB-compatible benchmarks; --help for options
  relaydb tool verify --dbpath D check a data directory offline
  relaydb version                print the version
`, Version)
}

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(exitBadOptions)
	}
	var code int
	switch os.Args[1] {
	case "serve":
		code = serve(os.Args[2:])
	case "router":
		code = routerMain(os.Args[2:])
	case "tool":
		code = tool(os.Args[2:])
	case "bench":
		code = benchMain(os.Args[2:])
	case "cluster":
		code = clusterMain(os.Args[2:])
	case "version", "--version":
		fmt.Printf("relaydb %s (MongoDB %s compatible), commit %s\n", Version, Version, gitCommit)
	case "help", "-h", "--help":
		usage()
	default:
		fmt.Fprintf(os.Stderr, "relaydb: unknown subcommand %q\n", os.Args[1])
		usage()
		code = exitBadOptions
	}
	os.Exit(code)
}

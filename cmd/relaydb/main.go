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

// usage prints relaydb's help (every subcommand) to stderr.
func usage() {
	stdout := os.Stdout
	os.Stdout = os.Stderr
	printHelp(rootHelp)
	os.Stdout = stdout
}

func main() {
	if e, ok := helpRequest(os.Args[1:]); ok { // help.go
		os.Exit(printHelp(e))
	}
	if len(os.Args) < 2 {
		usage()
		os.Exit(exitBadOptions)
	}
	os.Exit(dispatch(os.Args[1:]))
}

// dispatch runs the subcommand args name and returns its exit code.
func dispatch(args []string) int {
	switch args[0] {
	case "serve":
		return serve(args[1:])
	case "router":
		return routerMain(args[1:])
	case "tool":
		return tool(args[1:])
	case "bench":
		return benchMain(args[1:])
	case "cluster":
		return clusterMain(args[1:])
	case "version", "--version":
		fmt.Printf("relaydb %s (MongoDB %s compatible), commit %s\n", Version, Version, gitCommit)
		return exitOK
	}
	fmt.Fprintf(os.Stderr, "relaydb: unknown subcommand %q\n", args[0])
	usage()
	return exitBadOptions
}

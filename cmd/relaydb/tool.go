package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/relaydb/relaydb/internal/catalog"
)

func tool(args []string) int {
	if len(args) == 0 || args[0] != "verify" {
		fmt.Fprintln(os.Stderr, "usage: relaydb tool verify --dbpath DIR")
		return exitBadOptions
	}
	fs := flag.NewFlagSet("relaydb tool verify", flag.ContinueOnError)
	dbpath := fs.String("dbpath", "./data", "data directory to check")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitBadOptions
	}
	rep, err := catalog.Verify(*dbpath)
	if err != nil {
		fmt.Fprintf(os.Stderr, "relaydb tool verify: %v\n", err)
		return exitError
	}
	fmt.Printf("collections: %d\ndocuments: %d\nindex entries: %d\noplog entries: %d\n", rep.Collections, rep.Documents, rep.IndexEntries, rep.OplogEntries)
	for _, p := range rep.Problems {
		fmt.Printf("PROBLEM: %s\n", p)
	}
	if rep.OK() {
		fmt.Println("OK")
	}
	if !rep.OK() {
		return exitError
	}
	return exitOK
}

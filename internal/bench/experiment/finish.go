package experiment

import (
	"errors"
	"fmt"
	"io"
)

// Finish ends a registered experiment's Main: it prints the result files'
// paths and the report's text to stdout, reports the run's and the
// writing's errors on stderr under name ("relaydb bench experiment X"),
// and returns the exit code (1 if either failed).
func Finish(name string, paths []string, text string, runErr, writeErr error, stdout, stderr io.Writer) int {
	for _, p := range paths {
		fmt.Fprintln(stdout, p)
	}
	fmt.Fprint(stdout, text)
	if err := errors.Join(runErr, writeErr); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	return 0
}

package topology

import (
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// The golden scripts under testdata are cockroachdb/datadriven files: each
// case is a command line, optional input lines, "----" and the expected
// output up to a blank line; lines starting with # are comments. go test
// -rewrite (datadriven's flag) regenerates the expected output in place.

// scriptOutput is what a case prints: trailing newlines trimmed, blank
// lines dropped (so an output never needs datadriven's "----\n----" form)
// and "ok" for no output at all.
func scriptOutput(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			keep = append(keep, l)
		}
	}
	if len(keep) == 0 {
		return "ok"
	}
	return strings.Join(keep, "\n")
}

// inputLines splits a case's input into its lines (none for no input).
func inputLines(d *datadriven.TestData) []string {
	if d.Input == "" {
		return nil
	}
	return strings.Split(d.Input, "\n")
}

// args is a command line as the scripts use it: its verb, positional
// words and key=value pairs.
type args struct {
	verb  string
	words []string
	kv    map[string]string
}

// argsOf converts a datadriven command and its arguments: an argument
// without a value is a word, one with a value a key=value pair (a later
// duplicate key wins).
func argsOf(cmd string, cmdArgs []datadriven.CmdArg) args {
	a := args{verb: cmd, kv: map[string]string{}}
	for _, ca := range cmdArgs {
		if len(ca.Vals) == 0 {
			a.words = append(a.words, ca.Key)
		} else {
			a.kv[ca.Key] = strings.Join(ca.Vals, ",")
		}
	}
	return a
}

// parseArgs reads one line (an input line, say) the way datadriven reads a
// command line.
func parseArgs(t *testing.T, line string) args {
	cmd, cmdArgs, err := datadriven.ParseLine(line)
	if err != nil {
		t.Fatal(err)
	}
	return argsOf(cmd, cmdArgs)
}

func (a args) has(word string) bool {
	for _, w := range a.words {
		if w == word {
			return true
		}
	}
	return false
}

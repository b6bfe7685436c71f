package sim

import (
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestScripts runs the scenario scripts under testdata with the golden
// runner topology's scripts use (cockroachdb/datadriven; -rewrite
// regenerates the expected output).
func TestScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		s := &Script{Dir: t.TempDir()}
		defer s.Close()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			got, err := s.Exec(lineOf(d))
			if err != nil {
				got = "error: " + err.Error()
			}
			if got = strings.TrimSpace(got); got == "" {
				got = "ok"
			}
			return got + "\n"
		})
	})
}

// lineOf is the case's command line as the script wrote it.
func lineOf(d *datadriven.TestData) string {
	parts := []string{d.Cmd}
	for _, a := range d.CmdArgs {
		parts = append(parts, a.String())
	}
	return strings.Join(parts, " ")
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

package sim

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Scenario scripts in the style of cockroachdb/datadriven: a case is a
// command line, "----", and the expected output up to a blank line; lines
// starting with # are comments. -rewrite regenerates the outputs.

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of testdata scripts")

type scriptCase struct {
	pre  []string // comments and blank lines before the case
	cmd  string
	want string
	line int
}

func parseScript(t *testing.T, path string) (cases []scriptCase, trailer []string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	var pre []string
	for i := 0; i < len(lines); i++ {
		if l := lines[i]; strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			pre = append(pre, l)
			continue
		}
		c := scriptCase{pre: pre, cmd: lines[i], line: i + 1}
		pre = nil
		for i++; i < len(lines) && lines[i] != "----"; i++ {
		}
		var want []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
			want = append(want, lines[i])
		}
		c.want = strings.Join(want, "\n")
		cases = append(cases, c)
	}
	return cases, pre
}

func TestScripts(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) { runScript(t, path) })
	}
}

func runScript(t *testing.T, path string) {
	cases, trailer := parseScript(t, path)
	s := &Script{Dir: t.TempDir()}
	defer s.Close()
	var out strings.Builder
	for _, c := range cases {
		got, err := s.Exec(c.cmd)
		if err != nil {
			got = "error: " + err.Error()
		}
		if got = strings.TrimSpace(got); got == "" {
			got = "ok"
		}
		if !*rewrite && got != c.want {
			t.Errorf("%s:%d: %s\nwant:\n%s\ngot:\n%s", path, c.line, c.cmd, c.want, got)
		}
		for _, l := range c.pre {
			fmt.Fprintln(&out, l)
		}
		fmt.Fprintf(&out, "%s\n----\n%s\n\n", c.cmd, got)
	}
	for _, l := range trailer {
		fmt.Fprintln(&out, l)
	}
	if *rewrite {
		text := strings.TrimRight(out.String(), "\n") + "\n"
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

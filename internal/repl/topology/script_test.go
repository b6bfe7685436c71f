package topology

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

// A tiny datadriven runner in the style of cockroachdb/datadriven: a file
// is a list of cases, each a command line, optional input lines, "----",
// and the expected output up to a blank line. Lines starting with # and
// blank lines between cases are comments. -rewrite regenerates the
// expected output in place.

var rewrite = flag.Bool("rewrite", false, "rewrite expected output in testdata scripts")

type scriptCase struct {
	pre   []string // comments and blank lines before the case
	cmd   string
	input []string
	want  string
	line  int
}

func parseScript(t *testing.T, path string) (cases []scriptCase, trailer []string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	var pre []string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			pre = append(pre, l)
			continue
		}
		c := scriptCase{pre: pre, cmd: l, line: i + 1}
		pre = nil
		for i++; i < len(lines) && lines[i] != "----"; i++ {
			c.input = append(c.input, lines[i])
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

// runScript runs every case of path through do and compares (or rewrites)
// the output.
func runScript(t *testing.T, path string, do func(c scriptCase) string) {
	cases, trailer := parseScript(t, path)
	var out strings.Builder
	for _, c := range cases {
		got := strings.TrimRight(do(c), "\n")
		if got == "" {
			got = "ok"
		}
		got = dropBlankLines(got)
		if !*rewrite && got != c.want {
			t.Errorf("%s:%d: %s\nwant:\n%s\ngot:\n%s", path, c.line, c.cmd, c.want, got)
		}
		for _, l := range c.pre {
			fmt.Fprintln(&out, l)
		}
		fmt.Fprintln(&out, c.cmd)
		for _, l := range c.input {
			fmt.Fprintln(&out, l)
		}
		fmt.Fprintf(&out, "----\n%s\n\n", got)
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

func dropBlankLines(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// args splits a command line into its verb, positional words and
// key=value pairs.
type args struct {
	verb  string
	words []string
	kv    map[string]string
}

func parseArgs(line string) args {
	f := strings.Fields(line)
	a := args{kv: map[string]string{}}
	if len(f) == 0 {
		return a
	}
	a.verb = f[0]
	for _, w := range f[1:] {
		if k, v, ok := strings.Cut(w, "="); ok {
			a.kv[k] = v
		} else {
			a.words = append(a.words, w)
		}
	}
	return a
}

func (a args) has(word string) bool {
	for _, w := range a.words {
		if w == word {
			return true
		}
	}
	return false
}

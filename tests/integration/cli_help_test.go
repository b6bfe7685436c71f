package integration

import (
	"bytes"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/relaydb/relaydb/tests/harness"
)

// commandLine is a line of relaydb --help's command list: "  PATH  summary".
var commandLine = regexp.MustCompile(`^  ([a-z][a-z-]*(?: [a-z][a-z-]*)*)  +\S`)

// TestEverySubcommandHasHelp (issue #14 item 8) walks the subcommand tree
// that `relaydb --help` lists: each `relaydb PATH --help` exits 0, shows a
// usage, its flags (a leaf taking flags lists at least one), the commands
// under it, and an example whose flags are among those listed. The bench
// experiments and bench failover must be in the tree.
func TestEverySubcommandHasHelp(t *testing.T) {
	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	root := runHelp(t, bin)
	var paths []string
	for _, l := range strings.Split(root, "\n") {
		if m := commandLine.FindStringSubmatch(l); m != nil {
			paths = append(paths, m[1])
		}
	}
	for _, want := range []string{"serve", "router", "cluster up", "bench experiment", "bench experiment chaining", "bench failover", "tool verify"} {
		if !slices.Contains(paths, want) {
			t.Errorf("relaydb --help does not list %q; it lists %q", want, paths)
		}
	}
	for _, p := range paths {
		t.Run(strings.ReplaceAll(p, " ", "_"), func(t *testing.T) {
			out := runHelp(t, bin, strings.Fields(p)...)
			checkHelp(t, p, out, hasChildren(paths, p))
		})
	}
	out := runHelp(t, bin, "bench", "experiment")
	if !strings.Contains(out, "-out") {
		t.Errorf("bench experiment --help lists no flags:\n%s", out)
	}
	// Every registered experiment (the experiment package's own usage names
	// them) is in the tree.
	for _, m := range regexp.MustCompile(`relaydb bench experiment ([a-z-]+) --help`).FindAllStringSubmatch(out, -1) {
		if !slices.Contains(paths, "bench experiment "+m[1]) {
			t.Errorf("experiment %s is registered but not in relaydb --help (cmd/relaydb/help.go helpTree)", m[1])
		}
	}
}

func checkHelp(t *testing.T, path, out string, group bool) {
	t.Helper()
	if !strings.Contains(strings.ToLower(out), "usage") {
		t.Errorf("no usage line:\n%s", out)
	}
	_, example, found := strings.Cut(out, "\nExample:\n")
	if !found {
		t.Fatalf("no example:\n%s", out)
	}
	example, _, _ = strings.Cut(strings.TrimSpace(example), "\n")
	if !strings.HasPrefix(example, "relaydb "+path) {
		t.Errorf("example %q does not run relaydb %s", example, path)
	}
	if group || path == "version" {
		return
	}
	if !regexp.MustCompile(`(?m)^\s+-\w`).MatchString(out) {
		t.Errorf("no flags listed:\n%s", out)
	}
	for _, f := range regexp.MustCompile(`\s--?([a-zA-Z][\w-]*)`).FindAllStringSubmatch(example, -1) {
		if f[1] != "help" && !regexp.MustCompile(`(?m)^\s+-`+regexp.QuoteMeta(f[1])+`\b`).MatchString(out) {
			t.Errorf("the example's flag --%s is not among the flags listed:\n%s", f[1], out)
		}
	}
}

// runHelp runs `relaydb args... --help` and returns its output; it must
// exit 0 within 10 s.
func runHelp(t *testing.T, bin string, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command(bin, append(args, "--help")...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("relaydb %s --help: %v\n%s", strings.Join(args, " "), err, out.String())
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("relaydb %s --help did not exit within 10 s", strings.Join(args, " "))
	}
	return out.String()
}

func hasChildren(paths []string, p string) bool {
	for _, q := range paths {
		if strings.HasPrefix(q, p+" ") {
			return true
		}
	}
	return false
}

package experiment

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseFlags(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		check error
		code  int
		msg   string
	}{
		{nil, nil, -1, ""},
		{[]string{"-n", "3"}, nil, -1, ""},
		{[]string{"-h"}, nil, 0, "Usage: x\n  -n int"},
		{[]string{"-bogus"}, nil, 2, "flag provided but not defined: -bogus"},
		{[]string{"extra"}, errors.New("not reached"), 2, `cmd: unexpected argument "extra"`},
		{nil, errors.New("bad n"), 2, "cmd: bad n"},
	} {
		var stderr bytes.Buffer
		fs := NewFlagSet("cmd x", "Usage: x\n", &stderr)
		fs.Int("n", 1, "a number")
		code := ParseFlags("cmd", fs, tc.args, func() error { return tc.check })
		if code != tc.code || !strings.Contains(stderr.String(), tc.msg) || (tc.msg == "" && stderr.Len() > 0) {
			t.Errorf("%v: code %d, stderr %q; want %d and %q", tc.args, code, stderr.String(), tc.code, tc.msg)
		}
	}
}

func TestRun(t *testing.T) {
	runErr := errors.New("cell failed")
	for _, tc := range []struct {
		name           string
		o              *Outcome
		err            error
		code           int
		stdout, stderr string
	}{
		{"no report", nil, runErr, 1, "", "cmd: cell failed\n"},
		{"ok", &Outcome{Paths: []string{"a.md", "a.json"}, Text: "goal met\n"}, nil, 0, "a.md\na.json\ngoal met\n", ""},
		{"run and write errors", &Outcome{Paths: []string{"a.md"}, WriteErr: errors.New("disk full")}, runErr, 1, "a.md\n", "cmd: cell failed\ndisk full\n"},
		{"a check failed", &Outcome{Failed: true, Text: "lost 1\n"}, nil, 1, "lost 1\n", ""},
	} {
		var stdout, stderr bytes.Buffer
		code := Run("cmd", &stdout, &stderr, func(ctx context.Context) (*Outcome, error) {
			if ctx.Err() != nil {
				t.Errorf("%s: context done before the run", tc.name)
			}
			return tc.o, tc.err
		})
		if code != tc.code || stdout.String() != tc.stdout || stderr.String() != tc.stderr {
			t.Errorf("%s: code %d, stdout %q, stderr %q; want %d, %q, %q", tc.name, code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderr)
		}
	}
}

func TestWriteResultsAndWorkDir(t *testing.T) {
	dir, done, err := WorkDir("", "relaydb-command-test-", false)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results")
	paths, err := WriteResults(out, "n", "# md\n", map[string]int{"a": 1}, File{Suffix: ".svg", Body: "<svg/>"})
	want := []string{filepath.Join(out, "n.md"), filepath.Join(out, "n.json"), filepath.Join(out, "n.svg")}
	if err != nil || strings.Join(paths, ",") != strings.Join(want, ",") {
		t.Fatalf("WriteResults = %v, %v; want %v", paths, err, want)
	}
	if b, _ := os.ReadFile(want[1]); string(b) != "{\n  \"a\": 1\n}\n" {
		t.Errorf("NAME.json = %q", b)
	}
	done()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("WorkDir's done left %s: %v", dir, err)
	}
	if d, done, err := WorkDir(dir, "x", false); d != dir || err != nil {
		t.Errorf("WorkDir(%q) = %q, %v", dir, d, err)
	} else {
		done() // a given directory is the caller's: nothing to remove
	}
}

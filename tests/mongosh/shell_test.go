package mongosh

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// shellTimeout bounds one mongosh run.
const shellTimeout = 90 * time.Second

// marker starts the line a script prints its JSON result on.
const marker = "@@RELAYDB@@"

// mongoshPath returns $RELAYDB_MONGOSH, skipping the test without it
// (failing it when CI=true).
func mongoshPath(t *testing.T) string {
	t.Helper()
	p := os.Getenv("RELAYDB_MONGOSH")
	if p == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("RELAYDB_MONGOSH is not set under CI: scripts/test installs mongosh and sets it")
		}
		t.Skip("RELAYDB_MONGOSH is not set: run scripts/test (it installs mongosh into .tools/mongosh) or point it at a mongosh 2.x binary")
	}
	return p
}

// runShell runs script with mongosh connected to uri and returns its
// stdout; a non-zero exit fails the test with the shell's output.
func runShell(t *testing.T, shell, uri, script string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), shellTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, shell, "--quiet", "--norc", uri, "--eval", script)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "MONGOSH_FORCE_DISABLE_TELEMETRY_FOR_TESTING=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("mongosh: %v\nstdout:\n%s\nstderr:\n%s\nscript:\n%s", err, out.String(), errOut.String(), script)
	}
	return out.String()
}

// shellJSON runs script, whose last statement must be emit(value), and
// decodes value (relaxed EJSON) into a generic JSON value.
func shellJSON(t *testing.T, shell, uri, script string) any {
	t.Helper()
	prelude := `function emit(v) { print("` + marker + `" + EJSON.stringify(v, null, 0, {relaxed: true})) }` + "\n"
	out := runShell(t, shell, uri, prelude+script)
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, marker) {
			line = strings.TrimPrefix(l, marker)
		}
	}
	if line == "" {
		t.Fatalf("mongosh printed no result line:\n%s", out)
	}
	var v any
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		t.Fatalf("decoding %q: %v", line, err)
	}
	return v
}

// obj and arr read a decoded JSON value, failing the test on a wrong shape.
func obj(t *testing.T, v any, what string) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: want an object, got %T %v", what, v, v)
	}
	return m
}

func arr(t *testing.T, v any, what string) []any {
	t.Helper()
	a, ok := v.([]any)
	if !ok {
		t.Fatalf("%s: want an array, got %T %v", what, v, v)
	}
	return a
}

// num reads a JSON number.
func num(t *testing.T, v any, what string) int64 {
	t.Helper()
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("%s: want a number, got %T %v", what, v, v)
	}
	return int64(f)
}

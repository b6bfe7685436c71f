package integration

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/relaydb/relaydb/tests/harness"
)

// runServeExpectFailure runs `relaydb serve --inMemory args...` (bounded
// by 20 s), fails t unless it exits non-zero, and returns its output.
func runServeExpectFailure(t *testing.T, args ...string) string {
	t.Helper()
	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	full := append([]string{"serve", "--inMemory", "--port", "1", "--bind_ip", "127.0.0.1"}, args...)
	out, err := exec.CommandContext(ctx, bin, full...).CombinedOutput()
	if err == nil || ctx.Err() != nil {
		t.Fatalf("relaydb %v: want a startup failure, got %v\n%s", args, err, out)
	}
	return string(out)
}

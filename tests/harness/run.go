package harness

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// RunBinary runs the relaydb binary with args, bounded by timeout, logs
// its combined output and fails t if it does not exit 0 (an experiment's
// end-to-end test).
func RunBinary(t testing.TB, timeout time.Duration, args ...string) []byte {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	t.Logf("relaydb %s:\n%s", strings.Join(args, " "), out)
	if err != nil {
		t.Fatalf("relaydb %s: %v", strings.Join(args, " "), err)
	}
	return out
}

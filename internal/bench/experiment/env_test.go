package experiment

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestExperimentFromEnv runs "relaydb bench experiment" with the arguments
// in $RELAYDB_EXPERIMENT_ARGS (space-separated, e.g. "chaining --out
// /abs/bench/results --bin /tmp/relaydb"), for binaries built without the
// subcommand registered. Skipped when the variable is unset.
func TestExperimentFromEnv(t *testing.T) {
	args := strings.Fields(os.Getenv("RELAYDB_EXPERIMENT_ARGS"))
	if len(args) == 0 {
		t.Skip("RELAYDB_EXPERIMENT_ARGS is not set")
	}
	var stdout bytes.Buffer
	code := Main(args, &stdout, os.Stderr)
	t.Logf("stdout:\n%s", stdout.String())
	if code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

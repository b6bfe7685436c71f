package crashtest

import (
	"context"
	"fmt"
	"os/exec"
	"time"
)

// Target is the database under test: one server or a replica set.
type Target interface {
	// Name is the topology for reports ("standalone", "replset-3").
	Name() string
	// URI is the connection string clients write through.
	URI() string
	// WriteConcern is the write concern ops are sent with.
	WriteConcern() WriteConcern
	// KillAll sends SIGKILL to every process and waits until they are gone.
	KillAll(ctx context.Context) error
	// RestartAll starts every process again on its data and waits until
	// the target takes writes (a primary, all members settled).
	RestartAll(ctx context.Context) error
	// DBPaths are the data directories, for tool verify.
	DBPaths() []string
	// CheckURIs are direct connection strings: first the one the model is
	// checked on (the primary), then those that must converge to it.
	CheckURIs(ctx context.Context) ([]string, error)
}

// verifyTimeout bounds one `relaydb tool verify`.
const verifyTimeout = 60 * time.Second

// Verify runs `bin tool verify --dbpath dir` and returns its output on a
// non-zero exit.
func Verify(ctx context.Context, bin, dir string) error {
	ctx, cancel := context.WithTimeout(ctx, verifyTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "tool", "verify", "--dbpath", dir).CombinedOutput()
	if err != nil {
		return fmt.Errorf("relaydb tool verify --dbpath %s: %v\n%s", dir, err, out)
	}
	return nil
}

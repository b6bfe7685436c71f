package integration

import (
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// exitBound is how long a clean shutdown may take.
const exitBound = 10 * time.Second

func TestShutdownCommand(t *testing.T) {
	p, c := startServeProc(t, t.TempDir())
	err := c.Database("test").RunCommand(tctx(t, opTimeout), bson.D{{Key: "shutdown", Value: 1}}).Err()
	wantCode(t, err, 13, "shutdown on a non-admin database (Unauthorized)")
	// MongoDB closes the connection without a reply; an ok reply is also fine.
	_ = c.Database("admin").RunCommand(tctx(t, opTimeout), bson.D{{Key: "shutdown", Value: 1}}).Err()
	if code := p.wait(t, exitBound, "shutdown command"); code != 0 {
		t.Errorf("exit code after shutdown command = %d, want 0", code)
	}
}

func TestShutdownSIGTERM(t *testing.T) {
	p, c := startServeProc(t, t.TempDir())
	if _, err := c.Database("d").Collection("c").InsertOne(tctx(t, opTimeout), bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatalf("insert: %v", err)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v", err)
	}
	if code := p.wait(t, exitBound, "SIGTERM"); code != 0 {
		t.Errorf("exit code after SIGTERM = %d, want 0", code)
	}
}

package harness

import (
	"context"
	"os"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestTail(t *testing.T) {
	p := t.TempDir() + "/log"
	if err := os.WriteFile(p, []byte("line1\nline2\nline3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		n    int
		want string
	}{
		{100, "line1\nline2\nline3\n"},
		{8, "line3\n"}, // cut mid-line: the partial line is dropped
	} {
		if got := tail(p, tc.n); got != tc.want {
			t.Errorf("tail(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestFreePort(t *testing.T) {
	p, err := freePort()
	if err != nil || p <= 0 || p > 65535 {
		t.Fatalf("freePort() = %d, %v", p, err)
	}
}

// TestStartPingRestart needs a working server binary.
func TestStartPingRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the server")
	}
	s := Start(t)
	if !strings.HasPrefix(s.URI(), "mongodb://127.0.0.1:") {
		t.Fatalf("URI = %q", s.URI())
	}
	c := s.Client(t)
	ctx := context.Background()
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
		t.Fatalf("ping: %v", err)
	}
	s.Kill9()
	if s.Running() {
		t.Fatal("still running after Kill9")
	}
	s.Restart(t)
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
		t.Fatalf("ping after restart: %v", err)
	}
}

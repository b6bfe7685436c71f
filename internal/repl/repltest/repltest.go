// Package repltest holds test helpers shared by the replication packages.
//
// Invariants: everything a helper starts is stopped by t.Cleanup, in the
// reverse order of starting; helpers fail the test rather than return
// errors.
package repltest

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/server"
)

// shutdownTimeout bounds the server's graceful shutdown at cleanup.
const shutdownTimeout = 2 * time.Second

// Serve serves cat over TCP on a loopback port with no replication
// coordinator (its oplog and collections read as any client reads them),
// as a sync source does, and returns the address. The server and its
// execution engine stop when the test ends; cat stays open (the caller
// owns it).
func Serve(t testing.TB, cat *catalog.Catalog, log *slog.Logger) string {
	t.Helper()
	eng := exec.New(cat, log)
	disp := command.NewDispatcher(eng, command.Info{}, log)
	srv := server.New(server.Config{Addrs: []string{"127.0.0.1:0"}, Logger: log}, disp)
	if err := srv.Listen(); err != nil {
		t.Fatal(err)
	}
	go srv.Serve()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		disp.BeginShutdown()
		srv.Shutdown(ctx)
		eng.Close()
	})
	return srv.Addr().String()
}

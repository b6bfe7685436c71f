package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"

	"github.com/relaydb/relaydb/internal/config"
	"github.com/relaydb/relaydb/internal/server"
)

// bindFirst binds a data node's addresses before anything touches its
// dbpath, as mongod sets up its listeners before its storage engine: a
// taken port fails with exit 48 and leaves no store, lock or directory
// behind. It returns the listeners (for server.Config.Listeners) or nil
// and the exit code.
func bindFirst(cfg *config.Serve, log *slog.Logger) ([]net.Listener, int) {
	ls, err := server.Bind(listenAddrs(cfg))
	if err == nil {
		return ls, exitOK
	}
	log.Error("cannot listen", "err", err)
	fmt.Fprintf(os.Stderr, "relaydb serve: %v\n", err)
	if errors.Is(err, server.ErrAddrInUse) {
		return nil, exitNetError
	}
	return nil, exitError
}

// closeListeners closes ls (again, after the server's shutdown, is harmless).
func closeListeners(ls []net.Listener) {
	for _, l := range ls {
		_ = l.Close()
	}
}

package main

import (
	"errors"
	"log/slog"
	"os"

	"github.com/relaydb/relaydb/internal/config"
)

// freshDBPath reports whether serve is about to create its dbpath (it does
// not exist yet): a start that then fails removes it again, so a failed
// command leaves nothing behind (a missing TLS certificate or key file
// fails after the store is created).
func freshDBPath(cfg *config.Serve) bool {
	if cfg.InMemory {
		return false
	}
	_, err := os.Stat(cfg.DBPath)
	return errors.Is(err, os.ErrNotExist)
}

// discardFresh removes the dbpath a failed start created. It runs only
// when run returned an error code, which it does only before it serves:
// no client can have written to it.
func discardFresh(dbpath string, log *slog.Logger) {
	if err := os.RemoveAll(dbpath); err != nil {
		log.Warn("cannot remove the dbpath this failed start created", "dbpath", dbpath, "err", err)
		return
	}
	log.Info("removed the dbpath this failed start created", "dbpath", dbpath)
}

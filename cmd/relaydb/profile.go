package main

import (
	"log/slog"
	"os"
	"runtime/pprof"
)

// startProfile starts a CPU profile when RELAYDB_CPUPROFILE names a file;
// the returned function stops it (at shutdown). For measuring hot paths:
//
//	RELAYDB_CPUPROFILE=/tmp/cpu.prof relaydb serve ...; go tool pprof -top /tmp/cpu.prof
func startProfile(log *slog.Logger) func() {
	path := os.Getenv("RELAYDB_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		log.Error("cannot create CPU profile", "path", path, "err", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Error("cannot start CPU profile", "err", err)
		f.Close()
		return func() {}
	}
	log.Info("CPU profiling", "path", path)
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

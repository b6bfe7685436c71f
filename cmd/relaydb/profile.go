package main

import (
	"log/slog"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
)

// startProfile starts a CPU profile when RELAYDB_CPUPROFILE names a file;
// the returned function stops it (at shutdown). "%p" in the name becomes
// the listening port, so every member of a local set (and of a bench
// experiment, which passes its environment on) writes its own file:
//
//	RELAYDB_CPUPROFILE=/tmp/cpu-%p.prof relaydb serve ...; go tool pprof -top /tmp/cpu-27017.prof
func startProfile(log *slog.Logger, port int) func() {
	path := os.Getenv("RELAYDB_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	path = strings.ReplaceAll(path, "%p", strconv.Itoa(port))
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

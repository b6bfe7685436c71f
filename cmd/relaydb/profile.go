package main

import (
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
)

// startProfile starts a CPU profile when RELAYDB_CPUPROFILE names a file,
// and arranges an allocation profile (every allocation since start,
// sampled at Go's default rate) when RELAYDB_MEMPROFILE does; the returned
// function stops the one and writes the other (at shutdown). "%p" in a
// name becomes the listening port, so every member of a local set (and of
// a bench experiment, which passes its environment on) writes its own file:
//
//	RELAYDB_CPUPROFILE=/tmp/cpu-%p.prof relaydb serve ...; go tool pprof -top /tmp/cpu-27017.prof
//	RELAYDB_MEMPROFILE=/tmp/mem-%p.prof relaydb serve ...; go tool pprof -sample_index=alloc_space -top /tmp/mem-27017.prof
func startProfile(log *slog.Logger, port int) func() {
	stopCPU := startCPUProfile(log, profilePath("RELAYDB_CPUPROFILE", port))
	memPath := profilePath("RELAYDB_MEMPROFILE", port)
	return func() {
		stopCPU()
		writeMemProfile(log, memPath)
	}
}

// profilePath reads a profile file name from env, "%p" replaced by port.
func profilePath(env string, port int) string {
	return strings.ReplaceAll(os.Getenv(env), "%p", strconv.Itoa(port))
}

func startCPUProfile(log *slog.Logger, path string) func() {
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

// writeMemProfile writes the allocation profile (alloc_space/alloc_objects
// since start, inuse_* as of the last GC) to path; "" writes nothing.
func writeMemProfile(log *slog.Logger, path string) {
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		log.Error("cannot create memory profile", "path", path, "err", err)
		return
	}
	defer f.Close()
	runtime.GC() // inuse figures as of now
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		log.Error("cannot write memory profile", "path", path, "err", err)
	}
}

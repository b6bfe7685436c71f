package main

import (
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/relaydb/relaydb/internal/bench"
	"github.com/relaydb/relaydb/internal/bench/experiment"
	"github.com/relaydb/relaydb/internal/bench/failover"
	"github.com/relaydb/relaydb/internal/bench/rebalance"
	"github.com/relaydb/relaydb/internal/bench/secexp"
	"github.com/relaydb/relaydb/internal/bench/shardexp"
	"github.com/relaydb/relaydb/internal/bench/shardfailover"
	"github.com/relaydb/relaydb/internal/bench/soak"
	"github.com/relaydb/relaydb/internal/bench/suite"
)

// benchGCPercent is the bench client's GOGC when the environment sets none.
const benchGCPercent = 800

// benchMain is "relaydb bench load|run|suite|experiment|failover": the YCSB-compatible load
// generator (issue #3). It speaks to any mongodb:// target.
// RELAYDB_BENCH_CPUPROFILE names a file for the client's own CPU profile
// (the servers an experiment starts take RELAYDB_CPUPROFILE).
//
// The client runs its GC at GOGC=800 unless GOGC is set: its live heap is
// a few MB, and at the default the collector took about 8 % of the
// client's CPU in workload C, CPU the server under test shares on a small
// machine (issue #15; a load generator should cost as little as
// redis-benchmark's C client does).
func benchMain(args []string) int {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(benchGCPercent)
	}
	defer startCPUProfile(slog.Default(), os.Getenv("RELAYDB_BENCH_CPUPROFILE"))()
	suite.BuildCommit = gitCommit
	bench.RegisterSuite(suite.Main)
	bench.RegisterExperiment(experiment.Main)
	experiment.Register("sharding", shardexp.Main)
	experiment.Register("shard-failover", shardfailover.Main)
	experiment.Register("rebalance", rebalance.Main)
	experiment.Register("security", secexp.Main)
	bench.RegisterFailover(failover.Main)
	bench.RegisterSoak(soak.Main)
	return bench.Main(args, os.Stdout, os.Stderr)
}

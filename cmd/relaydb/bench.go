package main

import (
	"log/slog"
	"os"

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

// benchMain is "relaydb bench load|run|suite|experiment|failover": the YCSB-compatible load
// generator (issue #3). It speaks to any mongodb:// target.
// RELAYDB_BENCH_CPUPROFILE names a file for the client's own CPU profile
// (the servers an experiment starts take RELAYDB_CPUPROFILE).
func benchMain(args []string) int {
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

// Package shardexp runs issue #12's sharded experiment ("relaydb bench
// experiment sharding"): section 3 of shared/docs/reference-experiments.md
// scaled to the machine. YCSB workloads A and B (zipfian, readallfields)
// run through R routers, one YCSB client per router as the reference ran
// one client per mongos, against clusters whose usertable is sharded on
// {_id: "hashed"} before the load. Four series: the baseline (w:1,
// j:true, single-member shards), the durability options (w:0/j:false,
// w:1/j:false, w:1/j:true, w:"majority"), the shard topology (rs=1 against
// rs=3 = primary + secondary + arbiter, with w:1 and w:"majority") and
// the scale-out 2 -> 4 -> 8 shards with records and threads scaled with
// the shard count. It writes a markdown table with the reference's
// figures as shapes and ratios beside ours, the raw JSON and a chart.
//
// Invariants:
//   - A cell is (shards, members, workload, durability); records and
//     threads are functions of the shard count (Config.RecordsFor,
//     ThreadsFor), so a cell shared by two series (the baseline is the
//     durability series' w:1/j:true and the scale-out's first step) is run
//     once and read by both.
//   - One fresh cluster per (shards, members); its usertable is sharded on
//     a hashed _id (2 chunks per shard) and loaded once with w:1 j:true
//     (w:"majority" on replicated shards); every cell of that cluster then
//     runs on the same data, w:0 last so no cell inherits its
//     unacknowledged backlog, and each cell starts after a w:"majority"
//     write on every shard primary, so none inherits a replication
//     backlog either. Runs are outermost: a cell's runs interleave with
//     the other cells of its cluster.
//   - Nothing is discarded: failed operations (YCSB's -FAILED), failed
//     loads and cells are counted and shown; shards left without
//     documents are reported.
//   - Decisions (matrix, order, aggregation over clients, medians,
//     reference checks, markdown, chart) are pure functions of their
//     inputs (matrix.go, aggregate.go, reference.go, markdown.go,
//     output.go's Chart); I/O is in runner.go, cluster.go, output.go's
//     Write and cli.go.
//
// TODO(#15): per-process CPU per cell (shards, routers, config servers),
// as the chaining experiment reports the primary's; a --config-members
// flag (the config server set is always 3 members, as the reference's).
package shardexp

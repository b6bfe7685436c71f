// Package experiment runs issue #5's chained-replication experiment
// ("relaydb bench experiment chaining"): the reference's topologies (3, 7
// and 15 members on loopback) × write concern (w:1, w:"majority") ×
// chaining mode (on = chainingAllowed true, off = false, auto =
// settings.chainingMode "auto"), each cell a YCSB load with the same
// threads and record count, repeated and summarised as median with
// min-max; it writes a markdown table next to the reference's numbers,
// the raw JSON and a throughput chart.
//
// Invariants:
//   - Every compared cell uses the same record count, threads, latency and
//     write concern list; nothing is discarded: failed inserts and
//     unreachable status polls are counted and reported.
//   - One fresh cluster per (latency, nodes, mode); it is reused for every
//     w and run, with the table dropped before each run and the set
//     quiesced (every member at the primary's optime, bounded wait) so a
//     run does not inherit the previous one's replication backlog.
//   - Network distance is the node-to-node transport's simulated one-way
//     delay (serve --simulatedLatency), uniform or spread per member;
//     netem is not used (see Latency).
//   - Decisions (matrix expansion, aggregation, tree rendering, goal check,
//     markdown) are pure functions of their inputs; I/O is in runner.go,
//     topology.go and output.go.
package experiment

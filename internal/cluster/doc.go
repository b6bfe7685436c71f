// Package cluster starts, inspects and stops local replica sets on
// loopback: the engine behind `relaydb cluster up/status/down/kill/restart`
// and the topologies that tests and benchmarks build.
//
// A cluster lives in one directory: DIR/cluster.json records the spec and,
// per member, its name (m0, m1, ...), role, port, pid and the exact serve
// arguments; DIR/<member>/data and DIR/<member>/relaydb.log hold its data
// and log. Members are `relaydb serve --replSet NAME` processes that
// outlive the command that started them (unless Spec.DieWithParent), so a
// later command (Load) finds them again by pid.
//
// Invariants:
//   - Every member listens on 127.0.0.1 only.
//   - Spec.Validate holds for every cluster that Up starts: at most 50
//     members, at most 7 voters, at least one electable member.
//   - Member _id in the replica-set config equals the member's index in
//     Cluster.Members, and the order is data, hidden, delayed, read-only,
//     arbiter.
//   - Every wait is bounded (Spec timeouts or the caller's context).
package cluster

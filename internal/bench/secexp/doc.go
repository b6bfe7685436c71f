// Package secexp is `relaydb bench experiment security` (issue #13's
// benchmark): the throughput a secured single node keeps. Each run starts
// one fresh node per variant (plain, --auth, requireTLS, both), loads the
// same YCSB records and runs workload C on it, and divides each variant's
// throughput by the plain node's of the same run. Variants run one after
// another, their order rotated from run to run, so a slow stretch of the
// machine does not always fall on the same variant.
//
// Invariants: every phase goes through bench.RunPhase, as `relaydb bench
// load/run` do; a variant's ratio is taken against the plain node of the
// same run only (side by side), and a goal is met only when the median of
// the runs' ratios meets it; every node the experiment starts is stopped
// and its directory removed.
package secexp

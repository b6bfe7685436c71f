// Package changestream runs a real 3-member relaydb replica set on
// loopback and checks $changeStream with the official Go driver: the
// events of collection, database and cluster streams, updateLookup,
// resuming (resumeAfter, startAfter, startAtOperationTime), invalidate,
// postBatchResumeToken, history lost, and a stream across a step-down.
//
// Invariants: expected results are MongoDB 7.0's documented behaviour;
// every wait is bounded; every set is stopped by t.Cleanup.
package changestream

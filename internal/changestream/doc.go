// Package changestream builds MongoDB 7.0's change events ($changeStream)
// from relaydb's oplog: resume tokens, the $changeStream options, the
// scope a stream watches (a collection, a database or the cluster), the
// events one oplog entry yields (a transaction's applyOps unwound into one
// event per operation), updateDescription from the update oplog form,
// pre- and post-images from the pre-image an entry keeps
// (catalog/preimage.go), and the fragments of $changeStreamSplitLargeEvent.
//
// Invariants:
//   - Resume tokens order exactly as the events they name: by the oplog
//     entry's ts, then the operation's index inside an applyOps entry,
//     then the invalidate that follows an event, then an event's fragments.
//     Their hex form sorts the same way, byte for byte.
//   - A high-water-mark token at ts (postBatchResumeToken of a stream that
//     has scanned entry ts and returned every event of it) sorts after
//     every event token of that entry, so resuming from it skips them all.
//   - A Stream reads only entries at or below the majority commit point it
//     is given, so an event it returns is never rolled back.
//   - Every loop is bounded: a Next call scans at most maxScan entries;
//     a fetch holds at most readBytes plus one entry.
package changestream

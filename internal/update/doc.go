// Package update implements MongoDB update semantics as a pure function from
// (old document, update) to (new document, idempotent oplog form). It does
// no I/O.
//
// An update is compiled once (Compile) and applied to many documents
// (Apply). Three kinds exist: operator updates ({$set: ...}), replacement
// documents, and aggregation pipelines (run by internal/agg; their oplog form is
// the full new document, like a replacement).
//
// Invariants:
//   - Apply never mutates its input document; Result.Doc is a fresh copy.
//   - Operators are applied in path order (string order per component,
//     numeric components in numeric order), as MongoDB 5.0+ does, so new
//     fields are appended in that order.
//   - No two operators of one update touch paths where one is a prefix of
//     the other (checked at Compile, and at Apply for $[] / $[id] paths).
//   - Result.Oplog applied with ApplyOplog to the old document yields
//     Result.Doc, and applying it again changes nothing (idempotence).
//   - Result.Changed is false exactly when Result.Doc equals the old
//     document byte for byte (MongoDB's nModified).
//
// Client-visible failures are *mongoerr.Error with MongoDB's codes and
// messages.
package update

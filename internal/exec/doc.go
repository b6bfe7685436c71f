// Package exec plans and runs operations against the catalog: it picks an
// index scan or a collection scan, runs the iterator pipeline
// scan -> filter -> sort -> skip -> limit -> project, keeps cursors between
// getMores, and performs writes with MongoDB's per-statement semantics.
//
// Invariants:
//   - A document fetched through an index is always re-checked against the
//     full filter: index bounds only narrow the scan, they never decide a
//     match. So a loose bound costs time, never correctness.
//   - A read-modify-write (update, delete, findAndModify) holds the lock
//     stripe of the document's _id from the re-read to the commit, so two
//     concurrent updates of one document never lose either's effect.
//   - Each document write is atomic with its index entries and oplog entry
//     (the catalog's invariant); a multi-document statement is not atomic as
//     a whole, as in MongoDB.
package exec

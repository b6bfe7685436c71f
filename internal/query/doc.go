// Package query implements MongoDB's query language over bson.D documents:
// filters (Compile / Matcher), find projections (CompileProjection /
// Projection) and sort specifications (CompileSort / Sort). It is pure: no
// I/O, no goroutines, no global state.
//
// Invariants:
//   - Compile validates the whole filter up front; Match never fails and
//     never panics on any document, however malformed its shape.
//   - Path traversal follows MongoDB's ElementPath rules: arrays met before
//     the last path component are traversed (each document element is
//     searched for the rest of the path; a numeric component also selects
//     the element at that index); nested arrays are not traversed; an array
//     at the end of the path yields each of its elements and then the array
//     itself (operators on the whole array — $size, $elemMatch — see only
//     the array).
//   - A path that leads nowhere yields "missing", which only null equality
//     ({$eq/$lte/$gte: null}, $in with null) and $exists: false match.
//   - Negations ($ne, $nin, $not, $nor, $exists: false) negate the whole
//     path predicate, not each element: {a: {$ne: 1}} rejects {a: [1, 2]}.
//   - Comparisons ($gt, $lt, ...) only match values of the same canonical
//     type bracket (bsonx.CanonicalType), except for MinKey/MaxKey bounds.
//   - $expr sees only the variables given to CompileWithVars (a command's
//     let) or, per evaluation, to MatchVars; Compile allows system
//     variables only.
//   - Client-facing errors are *mongoerr.Error with MongoDB's codes.
package query

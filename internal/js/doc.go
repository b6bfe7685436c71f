// Package js runs MongoDB's server-side JavaScript ($where, $function,
// $accumulator) on goja, a pure-Go ECMAScript 5.1+ engine.
//
// A Session is one operation's JavaScript context: it owns at most one
// goja runtime (created on first use, never shared between goroutines)
// and the operation's time budget. It implements expr.Script, the hook
// the pure query and aggregation packages call.
//
// Invariants:
//   - Every evaluation is bounded in time: by what is left of the
//     operation's maxTimeMS, counted as the sum of its evaluations' times
//     (MaxTimeMSExpired, 50), and by a hard per-evaluation limit
//     (Options.EvalLimit: JSInterpreterFailure, 139); killOp of the
//     operation interrupts it too (Options.Ctx: Interrupted, 11601). A
//     timer interrupts the runtime; sleep(ms) waits on the interrupt, so
//     it never outlives it.
//   - Memory is bounded only indirectly: goja has no heap limit, so the
//     source is limited to MaxSourceBytes, the call stack to MaxCallStack
//     frames, converted values to MaxDepth levels, and an evaluation
//     running longer than 10 ms is interrupted once the process's live
//     heap has grown by MaxHeapGrowth (heap.go). TODO(#14): a per-runtime
//     heap limit (mongod's jsHeapLimitMB) needs an allocation hook goja
//     does not have.
//   - BSON -> JS -> BSON keeps every value except numbers and symbols:
//     int32 and double become JS numbers and come back as doubles, and a
//     symbol a string, as in mongod;
//     int64 and decimal128 travel as NumberLong / NumberDecimal objects and
//     come back exactly. ObjectId, Timestamp, BinData, MinKey, MaxKey,
//     regular expressions JS cannot express and other BSON-only types are
//     objects carrying a hidden _bsontype tag.
//   - Scripting can be switched off process-wide (SetEnabled(false), the
//     --noscripting option); then every entry point fails with MongoDB's
//     errors for a mongod without a script engine.
//   - Client-facing failures are *mongoerr.Error with MongoDB's codes.
package js

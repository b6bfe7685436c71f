// Package session keeps the retryable-write records of logical sessions:
// for each session (lsid) the transaction number in use and the statements
// (stmtId) already executed under it, with what each did. A write that a
// driver retries after a network error or a failover is answered from its
// record instead of being applied twice.
//
// Where the records come from (MongoDB's design, simplified):
//   - a primary records a statement right after its write commits; the
//     write's oplog entry carries lsid, txnNumber and stmtId;
//   - a secondary records the same statements as it applies those entries,
//     so a newly elected primary already knows them;
//   - at startup the table is rebuilt from the tail of the oplog
//     (RebuildWindow), in the background (ready.go), which bounds how old
//     a retry can be to still be recognised (drivers retry once,
//     immediately).
//
// Invariants:
//   - A session's txnNumber never decreases: a request with an older one
//     fails with TransactionTooOld (225).
//   - A statement is recorded only after the write that executed it is
//     committed (visible in the oplog), never before.
package session

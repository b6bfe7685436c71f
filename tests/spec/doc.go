// Package spec runs the MongoDB drivers' unified-format conformance tests
// (../shared/spec-tests, override with $RELAYDB_SPEC_DIR) through the
// official Go driver against a relaydb server started by tests/harness.
//
// Invariants:
//   - Every test case ends as exactly one of PASS, FAIL, XFAIL, XPASS or
//     SKIP. SKIP means "not applicable": its runOnRequirements cannot be met
//     by a standalone server (topology, version, serverless, auth) or it has
//     a skipReason.
//   - Anything the runner does not implement (operation, argument, entity
//     type, event type or field) is a FAIL with a "runner: unsupported ..."
//     reason, never a silent pass.
//   - Matching follows the unified test format's "Evaluating Matches":
//     root-level documents may carry extra fields, nested ones may not;
//     int32, int64 and double compare by value; $$ operators are honoured.
//   - Each test case is bounded by a deadline so a hang cannot stall CI.
//   - Test cases share no state: entities are created per test and closed
//     after it; the databases the file names are dropped before each test.
//   - configureFailPoint is never recorded as an event (the format ignores
//     it "in addition to" ignoreCommandMonitoringEvents); connection pool
//     events (observeEvents connection*/pool*) are recorded through the
//     driver's PoolMonitor and checked for expectEvents with eventType cmap.
//
// Raw commands. Where the v2 driver refuses or drops an option, the runner
// sends the command MongoDB's drivers send through Database.RunCommand and
// builds the result the typed API would (rawcmd.go, rawexec.go,
// rawbulk.go, ops_count.go):
//   - hint with an unacknowledged (w:0) write concern, which the driver
//     refuses client-side: the write is sent with writeConcern {w: 0} in the
//     command body but as an ordinary acknowledged OP_MSG (RunCommand cannot
//     set moreToCome). The server still honours w:0 semantics for the
//     reply, the command events match, and the result is {acknowledged:
//     false}. This approximation also makes the outcome deterministic.
//   - bypassDocumentValidation: false, which the driver omits
//     (insert/update/findAndModify/bulkWrite; aggregate through
//     RunCommandCursor).
//   - the deprecated count helper (gone from the v2 driver) and
//     estimatedDocumentCount with maxTimeMS (the driver only derives
//     maxTimeMS from a context deadline) as {count: ...}; rawData is
//     only sent to servers >= 8.2, as drivers do.
//   - find with batchSize == limit sends batchSize limit+1, as the CRUD
//     spec asks and v2.9 does not.
//   - insertMany failures carry a partial BulkWriteResult for
//     expectError.expectResult: the v2 BulkWriteException has none, so
//     insertedCount is derived from the write errors (ordered: index of the
//     first error; unordered: documents minus errors).
//
// Expected failures. expected_failures.json maps "folder/file: test
// description" to {reason, errorContains} for gaps relaydb knowingly has
// (non-simple collation, views, time-series, ...). Such a test still runs:
// a failure whose message contains errorContains is XFAIL (neither pass nor
// suite failure); a failure with another message stays FAIL and shows both;
// a pass is XPASS and fails the suite, as does a key matching no test, so
// the list stays true. floor.json holds the minimum PASS count per folder.
// Each topology adds its own list and replaces the floor
// (expected_failures.<topology>.json, floor.<topology>.json); the variant
// with every initialData collection sharded on {_id: "hashed"}
// (TestSpecOnShardedCollections) adds expected_failures.sharded-collections.json
// to the sharded topology's list, only for what MongoDB itself does on a
// sharded collection (unsorted reads in shard order, a write without
// shard key choosing another matching document, $out to a sharded
// collection), and has floor.sharded-collections.json.
package spec

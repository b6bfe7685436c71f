// Package bench is relaydb's YCSB-compatible load generator ("relaydb bench
// load" and "relaydb bench run", issue #3): YCSB's CoreWorkload driven
// through the official Go driver against any mongodb:// target, with
// records and operations shaped as YCSB's MongoDB binding shapes them.
//
// Invariants:
//   - Property names, defaults and presets are YCSB's (recordcount,
//     operationcount, readproportion, ..., requestdistribution,
//     insertorder, zeropadding, fieldcount, fieldlength, maxscanlength,
//     threadcount, target, maxexecutiontime, batchsize, mongodb.url), so a
//     YCSB property file runs unchanged and results compare with YCSB's.
//   - Keys are YCSB's: "user" + FNV-64 hash of the key number (or the
//     number itself with insertorder=ordered), zero-padded; the n-th loaded
//     record has the same _id as in YCSB.
//   - Each record is {_id: key, field0..fieldN: binary}; read = find by _id
//     (projected when readallfields=false), update = updateOne $set, insert
//     = insertOne or unordered insertMany of batchsize, scan = find
//     _id >= start sorted by _id with a limit. Write concern, journal and
//     read preference come only from the URI.
//   - Every operation is timed into an HDR histogram under its YCSB name
//     (op+"-FAILED" when it did not succeed) and its status counted under
//     the plain name, as YCSB's DBWrapper does; output is YCSB's text format
//     plus [SERVER]/[CLIENT] CPU lines, or JSON.
//   - Transaction reads only pick keys whose insert was acknowledged
//     (generator.AckCounter), so a run never reads a key that is not there.
//
// Not supported (TODO(#3)): the exponential and sequential request
// distributions, dataintegrity, insertionretrylimit, YCSB's [CLEANUP] and
// intended-latency measurements, and table names other than one collection.
package bench

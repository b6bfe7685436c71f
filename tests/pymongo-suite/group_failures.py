#!/usr/bin/env python3
"""Groups the failing tests of one scripts/pymongo-suite run by reason.

Usage: group_failures.py RESULTS.jsonl OUT.txt TOPOLOGY
RESULTS.jsonl is a run's results (the script prints where it kept them);
OUT.txt is written in the expected-failures format, one "# --- reason"
header per group. Rules are (test-id regex, failure-message regex, reason),
first match wins; an unmatched failure lands in "other: <message>" for a
person to name.
"""
import json, re, sys

RULES = [  # (test-id regex, why regex, group)
    (r"", r"'runtime': 'docker'|'container'", "environment (docker) — this machine is a container, so pymongo adds env.container to its handshake metadata and the expected document differs (not relaydb)"),
    (r"", r"DNS query name|DNS operation timed out|resolution lifetime|dns\.resolver", "environment (DNS) — needs the public DNS SRV/TXT records of test.build.10gen.cc (no network here)"),
    (r"SRV_URI|srv", r"SRV|srv", "environment (DNS) — needs the public DNS SRV/TXT records of test.build.10gen.cc (no network here)"),
    (r"test_versioned_api", r"", "bug: Stable API strict — commands outside API version 1 accepted with apiStrict; unknown commands answer 59 without the API message"),
    (r"TestPoolMaxSize", r"", "$where (no JavaScript engine)"),
    (r"test_connection_timeout_message|test_monitor_waits_after_server_check_error|Failure_due_to_unreachable_server|MinPoolSizeError|Failed_bulkWrite_operation|Failed_bulk_write_command_log|test_connection_pool_is_not_cleared", r"", "bug: failCommand on hello — on the handshake/monitoring hello (appName, blockConnection, closeConnection) it does not act as on mongod"),
    (r"", r"localhost:27017", "environment (localhost:27017) — the test builds MongoClient() with pymongo's default host, not DB_IP/DB_PORT"),
    (r"[Tt]ransaction|test_transactions|WithTransaction|convenient", r"", "transactions (not implemented; #14)"),
    (r"[Cc]hange_?[Ss]tream|ChangeStream|watch", r"", "change streams (not implemented; #14)"),
    (r"", r"change ?stream|\$changeStream|40573|40324", "change streams (not implemented; #14)"),
    (r"SnapshotSessionsUnsupportedOps", r"", "bug: readConcern snapshot — accepted in a snapshot session for writes and list commands (MongoDB refuses them)"),
    (r"", r"readConcern level 'snapshot' is not supported|[Ss]napshot", "snapshot reads — readConcern snapshot / snapshot sessions not supported (#14, with transactions)"),
    (r"test_retryable_writes.*(ErrorLabels|RetryableWriteError_error_label)", r"", "bug: RetryableWriteError label — missing on write-concern errors"),
    (r"test_raise_write_concern_error", r"", "bug: write concern on DDL — w: 4 on 3 members gives no writeConcernError for create/drop/createIndexes/renameCollection/$out"),
    (r"test_aggregate_write", r"not primary", "$out/$merge on secondaries — aggregate with $out/$merge and a secondary read preference answers NotPrimary (MongoDB 5.0+ runs it, writing to the primary)"),
    (r"WriteReadPreference", r"not primary", "$out/$merge on secondaries — aggregate with $out/$merge and a secondary read preference answers NotPrimary (MongoDB 5.0+ runs it, writing to the primary)"),
    (r"linearizable", r"", "bug: readConcern linearizable — accepted with $out (MongoDB refuses it)"),
    (r"test_client_backpressure|[Bb]ackpressure|overload", r"", "MongoDB 8.x backpressure — SystemOverloadedError/RetryableError labels and ingress rate limiter missing"),
    (r"", r"stopReplProducer|failGetMoreAfterCursorCheckout|fail point \w+: relaydb supports only", "fail points — relaydb has only failCommand (maxTimeAlwaysTimeOut, stopReplProducer, ... refused)"),
    (r"", r"stepdown period must be longer", "bug: replSetStepDown force — {replSetStepDown: 5, force: true} refused (secondaryCatchUpPeriodSecs)"),
    (r"[Cc]ollation", r"", "collation (#14 item 2)"),
    (r"", r"simple collation", "collation (#14 item 2)"),
    (r"", r"capped", "capped collections (#14 item 4)"),
    (r"test_tailable", r"", "capped collections — a tailable cursor on a capped collection returns no documents (#14 item 4)"),
    (r"", r"time-series|timeseries", "time-series collections (#14 item 4)"),
    (r"", r"clustered", "clustered collections (#14 item 4)"),
    (r"", r"viewOn|views yet", "views (#14 item 4)"),
    (r"", r"pre- and post-images", "change stream pre- and post-images"),
    (r"", r"\$where", "$where (no JavaScript engine)"),
    (r"", r"no such command: 'profile'|'profile'|database profiler", "profiler — profile command / levels 1 and 2 missing"),
    (r"", r"'fsync'", "fsync command missing"),
    (r"", r"'validate'", "validate command missing"),
    (r"", r"\(\?!|\(\?=|\(\?<|Perl syntax", "regex lookaround — Go RE2 (docs/compatibility.md)"),
    (r"", r"Timeout \(>", "slow — hit the 60 s per-test bound on this machine"),
    (r"test_max$|test_min$|test_min_query|test_max_scan|returnKey|showRecordId", r"", "bug: find min/max/returnKey/showRecordId — ignored"),
    (r"exhaust", r"", "exhaust cursors — never stream (moreToCome)"),
    (r"", r"dropDups", "bug: dropDups — index option rejected (mongod ignores it)"),
    (r"", r"ingressConnectionEstablishment|unrecognized parameter", "MongoDB 8.x parameters — ingress connection rate limiter parameters missing"),
    (r"test_connection_monitoring|TestCMAP", r"", "CMAP — failCommand blockConnection/closeConnection on connection establishment"),
    (r"[Cc]sot|csot", r"", "CSOT — client-side operation timeouts: maxTimeMS / blocking fail points"),
]

def group(r):
    for idre, whyre, g in RULES:
        if (not idre or re.search(idre, r["id"])) and (not whyre or re.search(whyre, r["why"])):
            return g
    return "other: " + re.sub(r", full error.*", "", r["why"])[:110]

def main(results, out, topology):
    rs = [json.loads(l) for l in open(results)]
    fails = [r for r in rs if r["outcome"] in ("failed", "error")]
    groups = {}
    for r in fails:
        groups.setdefault(group(r), []).append(r["id"])
    lines = [f"# pymongo 4.20.1 tests that fail on relaydb ({topology}); read by scripts/pymongo-suite.",
             "# One test id per line, then '# reason'. Remove a line when its test passes (XPASS).",
             "# Tests are grouped by reason; a group of a whole missing feature names it."]
    for g in sorted(groups, key=lambda g: (g.startswith("other"), g)):
        lines.append("")
        lines.append(f"# --- {g} ({len(groups[g])})")
        short = g.split(" — ")[0] if " — " in g else g.split(" (")[0]
        for i in sorted(groups[g]):
            lines.append(f"{i}  # {short}")
    open(out, "w").write("\n".join(lines) + "\n")
    for g in sorted(groups, key=lambda g: -len(groups[g])):
        print(len(groups[g]), g)

main(*sys.argv[1:])

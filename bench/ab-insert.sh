#!/usr/bin/env bash
# bench/ab-insert.sh BASE_BIN NEW_BIN [ROUNDS] — the insert goal of #15
# only: bench/ab-single-node.sh's load phase (50k records, 8 threads,
# hashed keys = YCSB's default), one bench client (BENCH_BIN, default
# NEW_BIN) for both servers; JSON results in $OUT (default
# /tmp/relaydb-ab-insert).
set -euo pipefail
OUT="${OUT:-/tmp/relaydb-ab-insert}" PORT="${PORT:-29702}" CLIENT="${BENCH_BIN:-$2}" PHASES=load \
	exec "$(dirname "$0")/ab-single-node.sh" "$@"

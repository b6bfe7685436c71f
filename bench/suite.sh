#!/usr/bin/env bash
# bench/suite.sh — build relaydb and run the benchmark suite (issue #3):
# load, YCSB workloads A, B, C, F at 1, 8 and 32 threads, and the load's
# durability matrix (w:0, w:1 j:false, w:1 j:true). Results go to
# bench/results/<name>.md, .json and two SVG plots.
#
# Usage:
#   bench/suite.sh                      # starts its own relaydb on loopback
#   bench/suite.sh --uri mongodb://host:27017/ycsb   # any MongoDB-compatible target
# Extra flags go to "relaydb bench suite" (see --help): --name, --recordcount,
# --operationcount, --durability-recordcount, --threads, --workloads, --out.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

mkdir -p bin
go build -ldflags "-X main.gitCommit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)" \
  -o bin/relaydb ./cmd/relaydb

case " $* " in
  *" --uri "*|*" -uri "*|*" --uri="*|*" -uri="*) exec bin/relaydb bench suite "$@" ;;
  *) exec bin/relaydb bench suite --start-server "$@" ;;
esac

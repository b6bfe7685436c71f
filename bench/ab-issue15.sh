#!/usr/bin/env bash
# bench/ab-issue15.sh BASE_BIN NEW_BIN [ROUNDS] — issue #15's table, every
# row side by side: each row runs the two binaries alternating per round
# (medians of ROUNDS, default 3) through the row's own script, with one
# bench client for both servers ($CLIENT, default BASE_BIN's). Writes the
# scripts' tables under one heading per row to $REPORT (default
# bench/results/issue15-ab.md) with the commands, machine and commits.
#
# The long rows are opt-in, so the default run takes about 25 minutes on
# 2 cores:
#   SCALE=1    reads at 1M vs 100k records and the 1M-record restart
#              (bench/scale-ab.sh, bench/ab-oplog.sh restart; ~5 GB of
#              disk per binary under $DATA, 20+ minutes)
#   REDIS=1    bench workload C vs redis-benchmark GET (needs redis-server
#              and redis-benchmark: apt-get install redis-server redis-tools)
# The chaining rows have their own command: relaydb bench experiment
# chaining (see bench/results/chaining*.md).
set -euo pipefail
base="$1" new="$2" rounds="${3:-3}"
here="$(cd "$(dirname "$0")" && pwd)"
report="${REPORT:-$here/results/issue15-ab.md}"
work="${OUT:-/tmp/relaydb-ab-issue15}"
rm -rf "$work" && mkdir -p "$work"
export CLIENT="${CLIENT:-$base}" BENCH_BIN="${CLIENT:-$base}"

row() { # row TITLE SCRIPT ARGS...: runs one row's script, appends its table
	local title="$1" script="$2"
	shift 2
	local t0=$SECONDS
	echo "== $title" >&2
	{
		printf '\n## %s\n\n```sh\n%s\n```\n\n' "$title" "bench/$script $*"
		OUT="$work/$script" "$here/$script" "$@" 2>"$work/$script.err" ||
			echo "(failed: see $work/$script.err)"
		printf '\n(%d s)\n' $((SECONDS - t0))
	} >>"$report"
}

{
	echo "# Issue #15 side by side: $(basename "$base") vs $(basename "$new")"
	echo
	echo "Run $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo);"
	echo "base \`$base\` ($("$base" --version 2>/dev/null | head -1)), new \`$new\` ($("$new" --version 2>/dev/null | head -1));"
	echo "medians of $rounds rounds, binaries alternating per round, one bench client (\`$CLIENT\`)."
	echo "Command: \`bench/ab-issue15.sh $base $new $rounds\` (SCALE=${SCALE:-0} REDIS=${REDIS:-0})."
} >"$report"

row "Single node: load (insert), workload C (read), workload A" ab-single-node.sh "$base" "$new" "$rounds"
LOAD=0 row "j:true group commit: 32 threads vs 1 thread" ab-journal.sh "$base" "$new" "$rounds"
row "3 members: primary CPU per insert and throughput, w:1 vs w:majority vs single node" ab-replset.sh "$base" "$new" "$rounds"
row "Oplog at its size cap vs before (--oplogSize 64)" ab-oplog.sh cap "$base" "$new" "$rounds"
row "Secondary catch-up (apply throughput)" ab-catchup.sh "$base" "$new" "$rounds"
if [[ "${REDIS:-0}" == 1 ]]; then
	row "relaydb workload C vs redis-benchmark GET" redis-vs-c.sh "$base" "$new" "$rounds"
fi
if [[ "${SCALE:-0}" == 1 ]]; then
	data="${DATA:-/tmp/relaydb-scale}"
	DATA="$data" row "Reads at 1M vs 100k records (default caches)" scale-ab.sh "$base" "$new" "$rounds"
	for b in base new; do
		DIR="$data-${b}1m/db" row "Restart of a 1M-record node ($b's data), clean start to first ping" \
			ab-oplog.sh restart "$base" "$new" "$rounds"
	done
fi
echo "wrote $report" >&2

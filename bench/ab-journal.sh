#!/usr/bin/env bash
# bench/ab-journal.sh BASE_BIN NEW_BIN [ROUNDS] — group commit side by side:
# per round, in alternating order, a fresh single node per binary and a
# YCSB load with {w: 1, j: true} at 1 thread (J1_RECORDS, default 2000)
# and at 32 threads (J32_RECORDS, default 10000) on its own fresh node.
# One bench client (BENCH_BIN, default NEW_BIN) drives both servers, so
# only the server differs. Also, unless LOAD=0, the w:1 load of
# bench/ab-single-node.sh (50k records, 8 threads) with hashed keys (YCSB's
# default) and with increasing keys (insertorder=ordered, zero-padded: the
# shape of driver-generated ObjectIds). JSON goes to $OUT (default
# /tmp/relaydb-ab-journal); a markdown table of medians (and min-max) is
# printed: throughput, server CPU µs/op and, for j:true, the 32/1 ratio.
set -euo pipefail
base="$1" new="$2" rounds="${3:-3}"
out="${OUT:-/tmp/relaydb-ab-journal}" port="${PORT:-29751}"
client="${BENCH_BIN:-$new}" j1="${J1_RECORDS:-2000}" j32="${J32_RECORDS:-10000}"
rm -rf "$out" && mkdir -p "$out"
declare -A bin=([base]="$base" [new]="$new")

# one BIN NAME ARGS...: a fresh node, one bench load, the node stopped.
one() {
	local b="$1" name="$2" d="$out/data" uri="mongodb://127.0.0.1:$port/ycsb"
	shift 2
	rm -rf "$d" && mkdir -p "$d"
	"${bin[$b]}" serve --port "$port" --bind_ip 127.0.0.1 --dbpath "$d" >"$out/server-$name.log" 2>&1 &
	local pid=$!
	sleep 1.5
	"$client" bench load -json -s=false -workload a "$@" -uri "$uri$QUERY" >"$out/$name.json"
	kill "$pid" && wait "$pid" 2>/dev/null || true
}

for ((r = 1; r <= rounds; r++)); do
	order="base new"
	((r % 2 == 0)) && order="new base"
	for b in $order; do
		QUERY='?w=1&journal=true' one "$b" "j1-$b-$r" -threads 1 -p recordcount="$j1"
		QUERY='?w=1&journal=true' one "$b" "j32-$b-$r" -threads 32 -p recordcount="$j32"
		if [[ "${LOAD:-1}" != 0 ]]; then
			QUERY='' one "$b" "hashed-$b-$r" -threads 8 -p recordcount=50000
			QUERY='' one "$b" "ordered-$b-$r" -threads 8 -p recordcount=50000 -p insertorder=ordered -p zeropadding=12
		fi
	done
done
rm -rf "$out/data"
python3 - "$out" "$rounds" <<'PY'
import json, os, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def runs(phase, b):
    return [json.load(open(f"{out}/{phase}-{b}-{r}.json")) for r in range(1, rounds + 1)]
def fmt(xs, f="{:.0f}"):
    return f"{f.format(statistics.median(xs))} ({f.format(min(xs))}-{f.format(max(xs))})"
print("| phase | base ops/s | new ops/s | base CPU µs/op | new CPU µs/op | new/base CPU |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
phases = ["j1", "j32"] + (["hashed", "ordered"] if os.path.exists(f"{out}/hashed-base-1.json") else [])
for p in phases:
    t = {b: [j["throughputOpsPerSec"] for j in runs(p, b)] for b in ["base", "new"]}
    c = {b: [j.get("serverCpuUsPerOp", 0) for j in runs(p, b)] for b in ["base", "new"]}
    ratio = statistics.median(c["new"]) / statistics.median(c["base"])
    print(f"| {p} | {fmt(t['base'])} | {fmt(t['new'])} | {fmt(c['base'], '{:.1f}')} | {fmt(c['new'], '{:.1f}')} | {ratio:.3f} |")
for b in ["base", "new"]:
    rs = [a["throughputOpsPerSec"] / o["throughputOpsPerSec"] for a, o in zip(runs("j32", b), runs("j1", b))]
    print(f"\n{b}: j:true 32 threads / 1 thread throughput, per round: " + ", ".join(f"{x:.2f}x" for x in rs) + f" (median {statistics.median(rs):.2f}x)")
PY

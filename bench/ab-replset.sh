#!/usr/bin/env bash
# bench/ab-replset.sh BASE_BIN NEW_BIN [ROUNDS] — two relaydb binaries side
# by side: per round, in alternating order, a fresh 3-member replica set on
# 127.0.0.1 (`relaydb cluster up --data 3`) gets a YCSB load (50k records,
# 8 threads) at w:1, then a second one at w:"majority"; then a fresh single
# node gets the same load. The same bench client ($CLIENT, default BASE_BIN)
# drives both servers, so only the server differs. serverCpuUsPerOp is the
# primary's (serverStatus extra_info) CPU per insert. JSON results go to
# $OUT (default /tmp/relaydb-ab-replset); a markdown table of medians
# (min-max in brackets) is printed. PROFILE=1 writes each primary's CPU
# profile next to the results (RELAYDB_CPUPROFILE).
set -euo pipefail
base="$1" new="$2" rounds="${3:-3}"
out="${OUT:-/tmp/relaydb-ab-replset}" port="${PORT:-30310}" client="${CLIENT:-$base}"
records="${RECORDS:-50000}"
rm -rf "$out" && mkdir -p "$out"
declare -A bin=([base]="$base" [new]="$new")
load() { # load NAME URI
	"$client" bench load -json -s=false -workload a -threads 8 -p recordcount="$records" -p table="t${1%%-*}" -uri "$2" >"$out/$1.json"
}
for ((r = 1; r <= rounds; r++)); do
	order="base new"
	((r % 2 == 0)) && order="new base"
	for b in $order; do
		d="$out/set-$b-$r"
		prof=""
		[[ -n "${PROFILE:-}" ]] && prof="$out/cpu-$b-$r-%p.prof"
		uri=$(RELAYDB_CPUPROFILE="$prof" "${bin[$b]}" cluster up --dir "$d" --data 3 --base-port "$port" --bin "${bin[$b]}" 2>"$out/up-$b-$r.log" | tail -1)
		sep="&"; [[ "$uri" != *\?* ]] && sep="?"
		load "w1-$b-$r" "${uri/\/\?//ycsb?}${sep}w=1"
		load "wmaj-$b-$r" "${uri/\/\?//ycsb?}${sep}w=majority"
		"${bin[$b]}" cluster down --dir "$d" >/dev/null 2>&1 || true
		nd="$out/single-$b-$r" && mkdir -p "$nd"
		RELAYDB_CPUPROFILE="$prof" "${bin[$b]}" serve --port "$((port + 50))" --bind_ip 127.0.0.1 --dbpath "$nd" >"$out/single-$b-$r.log" 2>&1 &
		pid=$!
		sleep 1.5
		load "single-$b-$r" "mongodb://127.0.0.1:$((port + 50))/ycsb?w=1"
		kill "$pid" && wait "$pid" 2>/dev/null || true
		rm -rf "$d/"*/data* "$nd" 2>/dev/null || true
	done
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def vals(phase, b, key):
    return [json.load(open(f"{out}/{phase}-{b}-{r}.json")).get(key, 0) for r in range(1, rounds + 1)]
def fmt(v):
    return f"{statistics.median(v):.0f} [{min(v):.0f}-{max(v):.0f}]"
print("| phase | base ops/s | new ops/s | base primary CPU µs/insert | new primary CPU µs/insert |")
print("| --- | ---: | ---: | ---: | ---: |")
for phase in ["single", "w1", "wmaj"]:
    print(f"| {phase} | {fmt(vals(phase,'base','throughputOpsPerSec'))} | {fmt(vals(phase,'new','throughputOpsPerSec'))} "
          f"| {fmt(vals(phase,'base','serverCpuUsPerOp'))} | {fmt(vals(phase,'new','serverCpuUsPerOp'))} |")
print()
print("| ratio (medians) | base | new |")
print("| --- | ---: | ---: |")
for b in ["base", "new"]:
    med = {p: (statistics.median(vals(p, b, 'throughputOpsPerSec')), statistics.median(vals(p, b, 'serverCpuUsPerOp')))
           for p in ["single", "w1", "wmaj"]}
    print(f"| {b}: w:majority/w:1 throughput | {med['wmaj'][0]/med['w1'][0]:.2f} | |" if b == "base" else
          f"| new: w:majority/w:1 throughput | | {med['wmaj'][0]/med['w1'][0]:.2f} |")
    print(f"| {b}: primary CPU/insert w:majority / single node | {med['wmaj'][1]/med['single'][1]:.2f} | |" if b == "base" else
          f"| new: primary CPU/insert w:majority / single node | | {med['wmaj'][1]/med['single'][1]:.2f} |")
PY

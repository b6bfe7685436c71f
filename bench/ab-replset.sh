#!/usr/bin/env bash
# bench/ab-replset.sh BASE_BIN NEW_BIN [ROUNDS] — two relaydb binaries side
# by side: per round, in alternating order, a fresh 3-member replica set on
# 127.0.0.1 (`relaydb cluster up --data 3`) gets a YCSB load (50k records,
# 8 threads) at w:1, another fresh set the same load at w:"majority", and a
# fresh single node the same load at w:1. The same bench client ($CLIENT, default BASE_BIN)
# drives both servers, so only the server differs. serverCpuUsPerOp is the
# primary's (serverStatus extra_info) CPU per insert. JSON results go to
# $OUT (default /tmp/relaydb-ab-replset); a markdown table of medians
# (min-max in brackets) is printed. PROFILE=1 writes every member's CPU
# profile next to the results (RELAYDB_CPUPROFILE; cpu-PHASE-BIN-ROUND-PORT
# .prof, the primary is the first port when the set came up with m0 primary).
# PHASES (default "w1 wmaj single") picks the phases to run.
set -euo pipefail
base="$1" new="$2" rounds="${3:-3}"
out="${OUT:-/tmp/relaydb-ab-replset}" port="${PORT:-30310}" client="${CLIENT:-$base}"
records="${RECORDS:-50000}" phases="${PHASES:-w1 wmaj single}"
rm -rf "$out" && mkdir -p "$out"
declare -A bin=([base]="$base" [new]="$new")
load() { # load NAME URI
	"$client" bench load -json -s=false -workload a -threads 8 -p recordcount="$records" -p table="t${1%%-*}" -uri "$2" >"$out/$1.json"
}
for ((r = 1; r <= rounds; r++)); do
	order="base new"
	((r % 2 == 0)) && order="new base"
	for b in $order; do
		for ph in w1 wmaj; do
			[[ " $phases " == *" $ph "* ]] || continue
			w=1 && [[ $ph == wmaj ]] && w=majority
			d="$out/set-$ph-$b-$r"
			prof=""
			[[ -n "${PROFILE:-}" ]] && prof="$out/cpu-$ph-$b-$r-%p.prof"
			uri=$(RELAYDB_CPUPROFILE="$prof" "${bin[$b]}" cluster up --dir "$d" --data 3 --base-port "$port" --bin "${bin[$b]}" 2>"$out/up-$ph-$b-$r.log" | tail -1)
			sep="&" && [[ "$uri" != *\?* ]] && sep="?"
			load "$ph-$b-$r" "${uri/\/\?//ycsb?}${sep}w=$w"
			"${bin[$b]}" cluster down --dir "$d" >/dev/null 2>&1 || true
			rm -rf "$d"/m*/data
		done
		[[ " $phases " == *" single "* ]] || continue
		prof=""
		[[ -n "${PROFILE:-}" ]] && prof="$out/cpu-single-$b-$r-%p.prof"
		nd="$out/single-$b-$r" && mkdir -p "$nd"
		RELAYDB_CPUPROFILE="$prof" "${bin[$b]}" serve --port "$((port + 50))" --bind_ip 127.0.0.1 --dbpath "$nd" >"$out/single-$b-$r.log" 2>&1 &
		pid=$!
		sleep 1.5
		load "single-$b-$r" "mongodb://127.0.0.1:$((port + 50))/ycsb?w=1"
		kill "$pid" && wait "$pid" 2>/dev/null || true
		rm -rf "$nd"
	done
done
python3 - "$out" "$rounds" "$phases" <<'PY'
import json, statistics, sys
out, rounds, phases = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
def vals(phase, b, key):
    return [json.load(open(f"{out}/{phase}-{b}-{r}.json")).get(key, 0) for r in range(1, rounds + 1)]
def fmt(v):
    return f"{statistics.median(v):.0f} [{min(v):.0f}-{max(v):.0f}]"
print("| phase | base ops/s | new ops/s | base primary CPU µs/insert | new primary CPU µs/insert |")
print("| --- | ---: | ---: | ---: | ---: |")
for phase in [p for p in ["single", "w1", "wmaj"] if p in phases]:
    print(f"| {phase} | {fmt(vals(phase,'base','throughputOpsPerSec'))} | {fmt(vals(phase,'new','throughputOpsPerSec'))} "
          f"| {fmt(vals(phase,'base','serverCpuUsPerOp'))} | {fmt(vals(phase,'new','serverCpuUsPerOp'))} |")
if len(phases) < 3:
    sys.exit(0)
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

#!/usr/bin/env bash
# bench/ab-single-node.sh BASE_BIN NEW_BIN [ROUNDS] — two relaydb binaries
# side by side on one machine: per round, in alternating order, a fresh
# single node on 127.0.0.1, YCSB load (50k records, 8 threads), workload C
# (150k ops) and workload A (100k ops), one bench client for both servers
# ($CLIENT, default BASE_BIN), so only the server differs. JSON results
# go to $OUT (default /tmp/relaydb-ab); a markdown
# table of medians (throughput, server CPU µs/op, new/base) is printed.
# PHASES (default "load c a") picks the phases; load always runs first.
set -euo pipefail
base="$1" new="$2" rounds="${3:-6}"
out="${OUT:-/tmp/relaydb-ab}" port="${PORT:-29701}" client="${CLIENT:-$1}"
phases="${PHASES:-load c a}"
rm -rf "$out" && mkdir -p "$out"
declare -A bin=([base]="$base" [new]="$new")
for ((r = 1; r <= rounds; r++)); do
	order="base new"
	((r % 2 == 0)) && order="new base"
	for b in $order; do
		d="$out/data-$b-$r" uri="mongodb://127.0.0.1:$port"
		mkdir -p "$d"
		"${bin[$b]}" serve --port "$port" --bind_ip 127.0.0.1 --dbpath "$d" >"$out/server-$b-$r.log" 2>&1 &
		pid=$!
		sleep 1.5
		"$client" bench load -json -s=false -workload a -threads 8 -p recordcount=50000 -uri "$uri" >"$out/load-$b-$r.json"
		if [[ " $phases " == *" c "* ]]; then
			"$client" bench run -json -s=false -workload c -threads 8 -p recordcount=50000 -p operationcount=150000 -uri "$uri" >"$out/c-$b-$r.json"
		fi
		if [[ " $phases " == *" a "* ]]; then
			"$client" bench run -json -s=false -workload a -threads 8 -p recordcount=50000 -p operationcount=100000 -uri "$uri" >"$out/a-$b-$r.json"
		fi
		kill "$pid" && wait "$pid" 2>/dev/null || true
		rm -rf "$d"
	done
done
python3 - "$out" "$rounds" "$phases" <<'PY'
import json, statistics, sys
out, rounds, phases = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
print("| phase | base ops/s | new ops/s | new/base | base CPU µs/op | new CPU µs/op | new/base |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for phase in phases:
    med = {}
    for b in ["base", "new"]:
        js = [json.load(open(f"{out}/{phase}-{b}-{r}.json")) for r in range(1, rounds + 1)]
        med[b] = (statistics.median(j["throughputOpsPerSec"] for j in js),
                  statistics.median(j.get("serverCpuUsPerOp", 0) for j in js))
    (bt, bc), (nt, nc) = med["base"], med["new"]
    print(f"| {phase} | {bt:.0f} | {nt:.0f} | {nt/bt:.3f} | {bc:.1f} | {nc:.1f} | {nc/bc:.3f} |")
print()
for phase in phases:
    for b in ["base", "new"]:
        cpu = [json.load(open(f"{out}/{phase}-{b}-{r}.json")).get("serverCpuUsPerOp", 0) for r in range(1, rounds + 1)]
        print(f"{phase}, {b}: server CPU µs/op per round {' '.join(f'{c:.1f}' for c in cpu)}  ")
PY

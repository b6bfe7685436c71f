#!/usr/bin/env bash
# bench/ab-insert.sh BASE_BIN NEW_BIN [ROUNDS] — the insert goal of #15
# only: per round, in alternating order, a fresh single node on 127.0.0.1
# and a YCSB load (50k records, 8 threads, hashed keys = YCSB's default),
# the same bench client (BENCH_BIN, default NEW_BIN) for both servers.
# JSON results go to $OUT (default /tmp/relaydb-ab-insert); prints each
# round's server CPU µs/op and the medians.
set -euo pipefail
base="$1" new="$2" rounds="${3:-6}"
out="${OUT:-/tmp/relaydb-ab-insert}" port="${PORT:-29702}" client="${BENCH_BIN:-$2}"
rm -rf "$out" && mkdir -p "$out"
declare -A bin=([base]="$base" [new]="$new")
for ((r = 1; r <= rounds; r++)); do
	order="base new"
	((r % 2 == 0)) && order="new base"
	for b in $order; do
		d="$out/data-$b-$r"
		mkdir -p "$d"
		"${bin[$b]}" serve --port "$port" --bind_ip 127.0.0.1 --dbpath "$d" >"$out/server-$b-$r.log" 2>&1 &
		pid=$!
		sleep 1.5
		"$client" bench load -json -s=false -workload a -threads 8 -p recordcount=50000 \
			-uri "mongodb://127.0.0.1:$port" >"$out/load-$b-$r.json"
		kill "$pid" && wait "$pid" 2>/dev/null || true
		rm -rf "$d"
	done
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
for b in ["base", "new"]:
    js = [json.load(open(f"{out}/load-{b}-{r}.json")) for r in range(1, rounds + 1)]
    cpu = [j.get("serverCpuUsPerOp", 0) for j in js]
    ops = [j["throughputOpsPerSec"] for j in js]
    print(f"{b}: CPU µs/op median {statistics.median(cpu):.1f} (min {min(cpu):.1f}, max {max(cpu):.1f}) rounds {' '.join(f'{c:.1f}' for c in cpu)}; ops/s median {statistics.median(ops):.0f}")
PY

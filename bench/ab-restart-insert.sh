#!/usr/bin/env bash
# bench/ab-restart-insert.sh BASE_BIN NEW_BIN [ROUNDS] — server core-µs per
# insert into a large collection right after a restart (issue #15: the
# _id filter of a collection over 100k documents is filled in the
# background; before, such a collection probed every insert below its
# bound). NEW_BIN loads $RECORDS (default 300000) YCSB records once; per
# round, in alternating order, each binary starts on a fresh copy of that
# data and inserts $INSERTS (default 50000) more hashed keys (YCSB
# insertstart, 8 threads) after a $SETTLE s (default 3) pause. One client
# (NEW_BIN) drives both. Prints medians of server CPU µs/insert.
set -euo pipefail
base="$1" new="$2" rounds="${3:-3}"
out="${OUT:-/tmp/relaydb-ab-restart-insert}" port="${PORT:-29721}"
records="${RECORDS:-300000}" inserts="${INSERTS:-50000}" settle="${SETTLE:-3}"
rm -rf "$out" && mkdir -p "$out/seed"
declare -A bin=([base]="$base" [new]="$new")
uri="mongodb://127.0.0.1:$port"
wait_up() {
	for _ in $(seq 100); do
		"$new" bench run -s=false -workload c -threads 1 -p recordcount=1 -p operationcount=1 -uri "$uri/ycsb" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	return 1
}
"$new" serve --port "$port" --bind_ip 127.0.0.1 --dbpath "$out/seed" >"$out/seed.log" 2>&1 &
pid=$!
wait_up
"$new" bench load -s=false -workload a -threads 8 -p recordcount="$records" -uri "$uri" >/dev/null
kill "$pid" && wait "$pid" 2>/dev/null || true
for ((r = 1; r <= rounds; r++)); do
	order="base new"
	((r % 2 == 0)) && order="new base"
	for b in $order; do
		d="$out/data-$b-$r"
		cp -r "$out/seed" "$d"
		"${bin[$b]}" serve --port "$port" --bind_ip 127.0.0.1 --dbpath "$d" >"$out/server-$b-$r.log" 2>&1 &
		pid=$!
		wait_up
		sleep "$settle"
		"$new" bench load -json -s=false -workload a -threads 8 -p insertstart="$records" \
			-p recordcount=$((records + inserts)) -p insertcount="$inserts" -uri "$uri" >"$out/ins-$b-$r.json"
		kill "$pid" && wait "$pid" 2>/dev/null || true
		rm -rf "$d"
	done
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
print("| binary | server CPU µs/insert (median) | min-max | ops/s (median) |")
print("| --- | ---: | ---: | ---: |")
for b in ["base", "new"]:
    js = [json.load(open(f"{out}/ins-{b}-{r}.json")) for r in range(1, rounds + 1)]
    cpu = [j.get("serverCpuUsPerOp", 0) for j in js]
    ops = [j["throughputOpsPerSec"] for j in js]
    print(f"| {b} | {statistics.median(cpu):.1f} | {min(cpu):.1f}-{max(cpu):.1f} | {statistics.median(ops):.0f} |")
PY

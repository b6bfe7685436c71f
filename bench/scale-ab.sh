#!/usr/bin/env bash
# bench/scale-ab.sh BASE_BIN NEW_BIN [ROUNDS] — server core-µs per read
# (YCSB workload C, 8 threads) at 100k and 1M records, two relaydb binaries
# side by side with default settings (issue #15: reads at 1M vs 100k).
# Each binary loads each record count once into $DATA-<base|new><100k|1m>
# (kept, and reused when it exists: delete them when done); then, per
# round in alternating order, each server is restarted on its data, warmed
# with $WARM reads and measured over $OPS reads. The same client binary
# ($CLIENT, default BASE_BIN) drives both. Prints a markdown table of
# medians (and min-max) of server core-µs/read and the server's RSS after
# the run; raw JSON goes to $OUT.
set -euo pipefail
base="$1" new="$2" rounds="${3:-3}"
out="${OUT:-/tmp/relaydb-scale-ab}" data="${DATA:-/tmp/relaydb-scale}" port="${PORT:-29801}"
client="${CLIENT:-$base}" warm="${WARM:-100000}" ops="${OPS:-100000}"
mkdir -p "$out"
declare -A bin=([base]="$base" [new]="$new") records=([100k]=100000 [1m]=1000000)

serve() { # serve BIN DIR: starts a server, sets pid
	"$1" serve --port "$port" --bind_ip 127.0.0.1 --dbpath "$2/db" >>"$2/server.log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		"$client" bench run -s=false -workload c -threads 1 -p recordcount=1 -p operationcount=1 \
			-uri "mongodb://127.0.0.1:$port/ycsb" >/dev/null 2>&1 && return 0
		sleep 0.3
	done
	echo "server $1 on $2 did not start" >&2
	return 1
}
stop() { kill "$pid" && wait "$pid" 2>/dev/null || true; }

for b in base new; do
	for s in 100k 1m; do
		d="$data-$b$s"
		[[ -f "$d/loaded" ]] && continue
		rm -rf "$d" && mkdir -p "$d/db"
		serve "${bin[$b]}" "$d"
		"$client" bench load -json -s=false -workload c -threads 8 -p recordcount="${records[$s]}" \
			-uri "mongodb://127.0.0.1:$port/ycsb" >"$out/load-$b-$s.json"
		stop
		touch "$d/loaded"
	done
done
for ((r = 1; r <= rounds; r++)); do
	order="base new"
	((r % 2 == 0)) && order="new base"
	for b in $order; do
		for s in 100k 1m; do
			d="$data-$b$s" uri="mongodb://127.0.0.1:$port/ycsb"
			serve "${bin[$b]}" "$d"
			"$client" bench run -s=false -workload c -threads 8 -p recordcount="${records[$s]}" \
				-p operationcount="$warm" -uri "$uri" >/dev/null
			"$client" bench run -json -s=false -workload c -threads 8 -p recordcount="${records[$s]}" \
				-p operationcount="$ops" -uri "$uri" >"$out/c-$b-$s-$r.json"
			awk '/VmRSS/ {print $2}' "/proc/$pid/status" >"$out/rss-$b-$s-$r.txt"
			stop
		done
	done
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def stats(xs):
    return statistics.median(xs), min(xs), max(xs)
rows = {}
for b in ["base", "new"]:
    for s in ["100k", "1m"]:
        cpu = [json.load(open(f"{out}/c-{b}-{s}-{r}.json"))["serverCpuUsPerOp"] for r in range(1, rounds + 1)]
        tput = [json.load(open(f"{out}/c-{b}-{s}-{r}.json"))["throughputOpsPerSec"] for r in range(1, rounds + 1)]
        rss = [int(open(f"{out}/rss-{b}-{s}-{r}.txt").read()) / 1024 for r in range(1, rounds + 1)]
        rows[b, s] = stats(cpu), stats(tput), stats(rss)
print("| binary | records | server core-µs/read (median, min-max) | reads/s (median) | RSS MB (median, min-max) |")
print("| --- | ---: | ---: | ---: | ---: |")
for (b, s), (cpu, tput, rss) in rows.items():
    print(f"| {b} | {s} | {cpu[0]:.1f} ({cpu[1]:.1f}-{cpu[2]:.1f}) | {tput[0]:.0f} | {rss[0]:.0f} ({rss[1]:.0f}-{rss[2]:.0f}) |")
print()
print("| binary | 1M / 100k core-µs per read |")
print("| --- | ---: |")
for b in ["base", "new"]:
    print(f"| {b} | {rows[b, '1m'][0][0] / rows[b, '100k'][0][0]:.2f}x |")
print()
print("json:", json.dumps({f"{b}-{s}": {"cpuUsPerRead": v[0][0], "cpuMin": v[0][1], "cpuMax": v[0][2],
      "readsPerSec": v[1][0], "rssMB": v[2][0]} for (b, s), v in rows.items()}))
PY

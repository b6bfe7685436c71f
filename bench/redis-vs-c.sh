#!/usr/bin/env bash
# bench/redis-vs-c.sh BASE_BIN NEW_BIN [ROUNDS] — `relaydb bench` workload C
# (50k records, 150k reads, 8 threads) against two relaydb binaries, next
# to redis-benchmark GET (50k keys of 1000 bytes, 150k random reads, 8
# connections) on one machine. Per round, in rotating order: redis GET, a
# fresh base node, a fresh new node; every relaydb run uses one bench
# client ($CLIENT, default NEW_BIN's) so only the server differs. Needs redis-server and
# redis-benchmark (Debian: redis-server redis-tools). Prints a markdown
# table of medians (throughput, server CPU µs/op, C/redis) and the
# per-round figures; redis-server's CPU is read from /proc (whole µs).
set -euo pipefail
base="$1" new="$2" rounds="${3:-3}"
out="${OUT:-/tmp/relaydb-redis-vs-c}" port="${PORT:-29711}" rport="${REDIS_PORT:-29712}" client="${CLIENT:-$new}"
rm -rf "$out" && mkdir -p "$out"
declare -A bin=([base]="$base" [new]="$new")
redis-server --port "$rport" --bind 127.0.0.1 --save "" --appendonly no >"$out/redis.log" 2>&1 &
rpid=$!
trap 'kill $rpid 2>/dev/null || true' EXIT
sleep 1
redis-benchmark -h 127.0.0.1 -p "$rport" -t set -n 50000 -r 50000 -d 1000 -c 8 -q >/dev/null 2>&1
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # utime+stime, clock ticks
run_redis() { # round; also redis-server's CPU µs per GET from /proc
	local t0 t1
	t0=$(cpu_ticks "$rpid")
	redis-benchmark -h 127.0.0.1 -p "$rport" -t get -n 150000 -r 50000 -d 1000 -c 8 --csv 2>/dev/null |
		awk -F'"' '$2 == "GET" {print $4}' >"$out/redis-$1.rps"
	t1=$(cpu_ticks "$rpid")
	echo "$(((t1 - t0) * 1000000 / $(getconf CLK_TCK) / 150000))" >"$out/redis-$1.cpu"
}
run_relaydb() { # which round
	local d="$out/data-$1-$2" uri="mongodb://127.0.0.1:$port"
	mkdir -p "$d"
	"${bin[$1]}" serve --port "$port" --bind_ip 127.0.0.1 --dbpath "$d" >"$out/server-$1-$2.log" 2>&1 &
	local pid=$!
	sleep 1.5
	"$client" bench load -json -s=false -workload a -threads 8 -p recordcount=50000 -uri "$uri" >"$out/load-$1-$2.json"
	"$client" bench run -json -s=false -workload c -threads 8 -p recordcount=50000 -p operationcount=150000 -uri "$uri" >"$out/c-$1-$2.json"
	kill "$pid" && wait "$pid" 2>/dev/null || true
}
orders=("redis base new" "base new redis" "new redis base")
for ((r = 1; r <= rounds; r++)); do
	for what in ${orders[$(((r - 1) % 3))]}; do
		if [[ $what == redis ]]; then run_redis "$r"; else run_relaydb "$what" "$r"; fi
	done
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
rs = range(1, rounds + 1)
redis = [float(open(f"{out}/redis-{r}.rps").read()) for r in rs]
c = {b: [json.load(open(f"{out}/c-{b}-{r}.json")) for r in rs] for b in ["base", "new"]}
med = statistics.median
print("| what | median ops/s | min-max ops/s | server CPU µs/op (median) | C / redis GET (median of rounds) |")
print("| --- | ---: | ---: | ---: | ---: |")
rcpu = [float(open(f"{out}/redis-{r}.cpu").read()) for r in rs]
print(f"| redis-benchmark GET, 8 conns | {med(redis):.0f} | {min(redis):.0f}-{max(redis):.0f} | {med(rcpu):.1f} | |")
for b in ["base", "new"]:
    t = [j["throughputOpsPerSec"] for j in c[b]]
    cpu = [j.get("serverCpuUsPerOp", 0) for j in c[b]]
    ratio = [x / y for x, y in zip(t, redis)]
    print(f"| relaydb bench C, {b} | {med(t):.0f} | {min(t):.0f}-{max(t):.0f} | {med(cpu):.1f} | {med(ratio):.2f} |")
print()
print("per round (redis, base, new ops/s): " + "; ".join(
    f"{redis[i]:.0f}, {c['base'][i]['throughputOpsPerSec']:.0f}, {c['new'][i]['throughputOpsPerSec']:.0f}" for i in range(rounds)))
PY

#!/usr/bin/env bash
# bench/ab-oplog.sh MODE BASE_BIN NEW_BIN [ROUNDS] — two relaydb binaries side
# by side, alternating per round, medians (one bench client for both
# servers: $CLIENT, default BASE_BIN's):
#   cap     fresh single node with --oplogSize ${OPLOG_MB:-64}: YCSB load of
#           30k records (oplog well under its cap), then $FILL more (default
#           70k: past the cap), then 30k more (well past it); the server
#           core-µs per insert of the first and the last phase, and their
#           ratio. A third server, "nocap" (NEW_BIN with --oplogSize
#           ${NOCAP_MB:-4096}, never full), is the control: what the last
#           phase costs more from the data's growth alone, with no truncation.
#   restart the data directory $DIR (e.g. 1M YCSB records loaded with
#           `relaydb bench load -workload a -p recordcount=1000000 -threads 8`):
#           seconds from process start to the first successful ping (OP_MSG
#           ping over a raw socket, polled every 2 ms), then SIGTERM.
# Results (JSON per run) go to $OUT (default /tmp/relaydb-ab-oplog).
set -euo pipefail
mode="$1" base="$2" new="$3" rounds="${4:-3}"
out="${OUT:-/tmp/relaydb-ab-oplog}" port="${PORT:-30110}"
mkdir -p "$out"
declare -A bin=([base]="$base" [new]="$new" [nocap]="$new")
client="${CLIENT:-$base}"

ping_timer() { # BIN DBPATH: prints seconds to first ping
	python3 - "$1" "$2" "$port" "$out/server-restart.log" <<'PY'
import socket, struct, subprocess, sys, time, signal
def cstr(s): return s.encode() + b"\0"
body = b"\x10" + cstr("ping") + struct.pack("<i", 1) + b"\x02" + cstr("$db") + struct.pack("<i", 6) + cstr("admin")
doc = struct.pack("<i", len(body) + 5) + body + b"\0"
payload = struct.pack("<I", 0) + b"\x00" + doc
msg = struct.pack("<iiii", 16 + len(payload), 1, 0, 2013) + payload
def ping(port):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=1)
    except OSError:
        return False
    try:
        s.sendall(msg)
        hdr = s.recv(16)
        if len(hdr) < 16: return False
        n, data = struct.unpack("<i", hdr[:4])[0] - 16, b""
        while len(data) < n:
            c = s.recv(n - len(data))
            if not c: return False
            data += c
        return b"errmsg" not in data
    except OSError:
        return False
    finally:
        s.close()
binp, dbpath, port, logp = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
log = open(logp, "ab")
t0 = time.monotonic()
p = subprocess.Popen([binp, "serve", "--port", str(port), "--bind_ip", "127.0.0.1", "--dbpath", dbpath], stdout=log, stderr=log)
while not ping(port):
    if p.poll() is not None or time.monotonic() - t0 > 300:
        p.kill(); sys.exit("server exited or timed out")
    time.sleep(0.002)
el = time.monotonic() - t0
p.send_signal(signal.SIGTERM)
p.wait(timeout=120)
print(f"{el:.3f}")
PY
}

load() { # URI START COUNT OUTFILE
	"$client" bench load -json -s=false -workload a -threads 8 -p recordcount=1000000 \
		-p insertstart="$2" -p insertcount="$3" -uri "$1" >"$4"
}

for ((r = 1; r <= rounds; r++)); do
	order="base new"
	((r % 2 == 0)) && order="new base"
	[[ "$mode" == cap ]] && order="$order nocap"
	for b in $order; do
		case "$mode" in
		cap)
			d="$out/data-$b-$r" uri="mongodb://127.0.0.1:$port/ycsb"
			rm -rf "$d" && mkdir -p "$d"
			"${bin[$b]}" serve --port "$port" --bind_ip 127.0.0.1 --dbpath "$d" --oplogSize "$([[ $b == nocap ]] && echo "${NOCAP_MB:-4096}" || echo "${OPLOG_MB:-64}")" >"$out/server-$b-$r.log" 2>&1 &
			pid=$!
			sleep 1.5
			load "$uri" 0 30000 "$out/before-$b-$r.json"
			load "$uri" 30000 "${FILL:-70000}" "$out/fill-$b-$r.json"
			load "$uri" $((30000 + ${FILL:-70000})) 30000 "$out/after-$b-$r.json"
			kill "$pid" && wait "$pid" 2>/dev/null || true
			rm -rf "$d"
			;;
		restart)
			ping_timer "${bin[$b]}" "${DIR:?set DIR to the data directory}" >"$out/restart-$b-$r.txt"
			;;
		esac
	done
done
python3 - "$out" "$rounds" "$mode" <<'PY'
import json, statistics, sys
out, rounds, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def spread(xs): return f"{min(xs):.2f}-{max(xs):.2f}"
if mode == "cap":
    print("| binary | before cap: CPU µs/insert (ops/s) | past cap: CPU µs/insert (ops/s) | past/before (spread) |")
    print("| --- | ---: | ---: | ---: |")
    for b in ["base", "new", "nocap"]:
        bef = [json.load(open(f"{out}/before-{b}-{r}.json")) for r in range(1, rounds + 1)]
        aft = [json.load(open(f"{out}/after-{b}-{r}.json")) for r in range(1, rounds + 1)]
        cb = [j["serverCpuUsPerOp"] for j in bef]; ca = [j["serverCpuUsPerOp"] for j in aft]
        tb = statistics.median(j["throughputOpsPerSec"] for j in bef); ta = statistics.median(j["throughputOpsPerSec"] for j in aft)
        ratios = [a / c for a, c in zip(ca, cb)]
        print(f"| {b} | {statistics.median(cb):.1f} ({tb:.0f}) | {statistics.median(ca):.1f} ({ta:.0f}) | "
              f"{statistics.median(ca)/statistics.median(cb):.2f} ({spread(ratios)}) |")
else:
    print("| binary | restart to first ping, median s | spread s |")
    print("| --- | ---: | ---: |")
    for b in ["base", "new"]:
        xs = [float(open(f"{out}/restart-{b}-{r}.txt").read()) for r in range(1, rounds + 1)]
        print(f"| {b} | {statistics.median(xs):.3f} | {spread(xs)} |")
PY

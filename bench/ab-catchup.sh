#!/usr/bin/env bash
# bench/ab-catchup.sh BASE_BIN NEW_BIN [ROUNDS] — secondary apply
# throughput, two relaydb binaries side by side: per round, in alternating
# order, a fresh 3-member set (`relaydb cluster up --data 3`); a
# secondary is killed, the primary takes a YCSB load of $RECORDS small records
# (8 threads, w:1; 4 fields of 20 bytes, so the cost is per entry, not
# per byte), it is restarted and bench/catchup times how long it takes to
# apply through the primary's last entry (from just before the restart)
# and reads its CPU seconds at that moment. The same bench client
# ($CLIENT, default BASE_BIN) loads both. With UPDATES=N the primary
# then also takes N YCSB updates (workload A's field updates, no reads,
# same threads and w:1) before the restart: an update-heavy backlog, whose
# entries read documents when applied. JSON results go to $OUT (default
# /tmp/relaydb-ab-catchup); a markdown table of medians [min-max] is
# printed. To compare server settings of one binary, pass a wrapper script
# as BIN that adds them to `serve` (bench/results/parallel-apply.md).
set -euo pipefail
base="$1" new="$2" rounds="${3:-3}"
out="${OUT:-/tmp/relaydb-ab-catchup}" port="${PORT:-30440}" client="${CLIENT:-$base}"
records="${RECORDS:-200000}" updates="${UPDATES:-0}"
here="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$out" && mkdir -p "$out"
(cd "$here/.." && go build -o "$out/catchup" ./bench/catchup)
declare -A bin=([base]="$base" [new]="$new")
d=""
trap '[[ -n "$d" && -d "$d" ]] && "$base" cluster down --dir "$d" >/dev/null 2>&1 || true' EXIT
for ((r = 1; r <= rounds; r++)); do
	order="base new"
	((r % 2 == 0)) && order="new base"
	for b in $order; do
		d="$out/set-$b-$r"
		uri=$("${bin[$b]}" cluster up --dir "$d" --data 3 --base-port "$port" --bin "${bin[$b]}" 2>"$out/up-$b-$r.log" | tail -1)
		sleep 3 # the secondaries finish their initial sync
		st=$("${bin[$b]}" cluster status --dir "$d")
		phost=$(awk '$6 == "PRIMARY" {print $3}' <<<"$st")
		sname=$(awk '$6 == "SECONDARY" {print $1}' <<<"$st" | tail -1)
		shost=$(awk -v m="$sname" '$1 == m {print $3}' <<<"$st")
		[[ -n "$phost" && -n "$sname" ]] || { echo "no primary or secondary: $st" >&2; exit 1; }
		"${bin[$b]}" cluster kill --dir "$d" "$sname" >/dev/null
		sep="&"; [[ "$uri" != *\?* ]] && sep="?"
		"$client" bench load -json -s=false -workload a -threads 8 -p recordcount="$records" \
			-p fieldcount=4 -p fieldlength=20 -uri "${uri/\/\?//ycsb?}${sep}w=1" >"$out/load-$b-$r.json"
		if ((updates > 0)); then
			"$client" bench run -json -s=false -workload a -threads 8 -p recordcount="$records" \
				-p operationcount="$updates" -p readproportion=0 -p updateproportion=1 \
				-p fieldcount=4 -p fieldlength=20 -uri "${uri/\/\?//ycsb?}${sep}w=1" >"$out/run-$b-$r.json"
		fi
		since=$(date +%s.%N)
		"${bin[$b]}" cluster restart --dir "$d" "$sname" >/dev/null
		pid=$(python3 -c 'import json,sys; print([m["PID"] for m in json.load(open(sys.argv[1]))["Members"] if m["Name"]==sys.argv[2]][0])' "$d/cluster.json" "$sname")
		"$out/catchup" -primary "$phost" -member "$shost" -pid "$pid" -since "$since" >"$out/catchup-$b-$r.json"
		"${bin[$b]}" cluster down --dir "$d" >/dev/null 2>&1 || true
		rm -rf "$d"
	done
done
python3 - "$out" "$rounds" "$records" "$updates" <<'PY'
import json, statistics, sys
out, rounds, records, updates = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def vals(b, key):
    return [json.load(open(f"{out}/catchup-{b}-{r}.json"))[key] for r in range(1, rounds + 1)]
def fmt(v, f="{:.2f}"):
    return f"{f.format(statistics.median(v))} [{f.format(min(v))}-{f.format(max(v))}]"
label = f"{records} inserts" + (f" + {updates} updates" if updates else "")
records += updates  # entries applied
print(f"| {label} | base | new | new/base (medians) |")
print("| --- | ---: | ---: | ---: |")
for key, label in [("catchupSec", "catch-up seconds (restart to caught up)"), ("memberCpuSec", "secondary CPU seconds")]:
    bv, nv = vals("base", key), vals("new", key)
    print(f"| {label} | {fmt(bv)} | {fmt(nv)} | {statistics.median(nv)/statistics.median(bv):.2f} |")
bt = [records / x for x in vals("base", "catchupSec")]
nt = [records / x for x in vals("new", "catchupSec")]
print(f"| apply throughput, entries/s | {fmt(bt, '{:.0f}')} | {fmt(nt, '{:.0f}')} | {statistics.median(nt)/statistics.median(bt):.2f} |")
bc = [x * 1e6 / records for x in vals("base", "memberCpuSec")]
nc = [x * 1e6 / records for x in vals("new", "memberCpuSec")]
print(f"| secondary CPU µs per entry (incl. startup) | {fmt(bc, '{:.1f}')} | {fmt(nc, '{:.1f}')} | {statistics.median(nc)/statistics.median(bc):.2f} |")
PY

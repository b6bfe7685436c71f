#!/usr/bin/env python3
"""Routed vs direct vs sharded YCSB through one relaydb router (issue #11):
bench/results/router-overhead.md, "Quiet machine". Needs pymongo (.venv).
usage: RELAYDB_BIN=bin/relaydb bench/router-overhead.py OUT.json ROUTER SH0 SH1"""
import json, os, re, subprocess, sys
from pymongo import MongoClient
BIN = os.environ.get("RELAYDB_BIN", "bin/relaydb")
RECS, OPS, THREADS = 20000, 30000, 8
PHASES = ["load", "c", "b", "a"]
ROUNDS = int(os.environ.get("ROUNDS", "3"))

def pid_of_port(port):
    out = subprocess.run(["ss", "-ltnpH", f"sport = :{port}"], capture_output=True, text=True).stdout
    return int(re.search(r"pid=(\d+)", out).group(1))

def cpu_us(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) * 1e6 / os.sysconf("SC_CLK_TCK")

def main():
    out, router, sh0, sh1 = sys.argv[1:5]
    c = MongoClient(f"mongodb://{router}/")
    c.admin.command({"enableSharding": "ycsb", "primaryShard": "sh0"})
    t = {"routed": f"mongodb://{router}/ycsb", "direct": f"mongodb://{sh0}/ycsb_direct?directConnection=true",
         "sharded": f"mongodb://{router}/ycsb_sh"}
    pids = {"router": pid_of_port(router.split(":")[1]), "sh0": pid_of_port(sh0.split(":")[1]), "sh1": pid_of_port(sh1.split(":")[1])}
    order = ["routed", "direct", "sharded"]
    results = []
    for rnd in range(ROUNDS):
        seq = order if rnd % 2 == 0 else list(reversed(order))
        for phase in PHASES:
            for kind in seq:
                uri = t[kind]
                if phase == "load":
                    if kind == "sharded":
                        c.ycsb_sh.usertable.drop()
                        c.admin.command({"shardCollection": "ycsb_sh.usertable", "key": {"_id": "hashed"}, "numInitialChunks": 2})
                    args = [BIN, "bench", "load", "-workload", "a", "-threads", str(THREADS), "-p", f"recordcount={RECS}", "-uri", uri, "-json", "-s=false"]
                    if kind != "sharded":
                        args.insert(-2, "-drop")
                else:
                    args = [BIN, "bench", "run", "-workload", phase, "-threads", str(THREADS), "-p", f"recordcount={RECS}",
                            "-p", f"operationcount={OPS}", "-uri", uri, "-json", "-s=false"]
                b = {k: cpu_us(p) for k, p in pids.items()}
                l0 = os.getloadavg()[0]
                res = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
                a = {k: cpu_us(p) for k, p in pids.items()}
                n = res["operations"]
                r = {"round": rnd + 1, "kind": kind, "phase": phase, "ops": n, "tput": res["throughputOpsPerSec"],
                     "p50": {o["name"]: o["p50LatencyUs"] for o in res["ops"]},
                     "benchCpuPerOp": res.get("serverCpuUsPerOp"),
                     "procPerOp": {k: (a[k] - b[k]) / n for k in pids}, "load1": [l0, os.getloadavg()[0]]}
                results.append(r)
                print(json.dumps({x: r[x] for x in ["round", "kind", "phase", "tput", "benchCpuPerOp", "load1"]}), flush=True)
                json.dump(results, open(out, "w"), indent=1)

main()

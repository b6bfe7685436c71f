"""A local sharded cluster for the pymongo suite (tests/test_sharding.py).

`relaydb cluster up --shards 2 --shard-members 1 --config-members 1
--routers 2` starts it in a temp dir (config server set, two shard sets,
two routers; the shards are added by `cluster up`), and `relaydb cluster
down` stops it.

Invariants: start() either returns with both routers answering ping or
raises with the routers' log tails, having stopped what it started;
stop() never leaves a process of the cluster running (`cluster down`,
then SIGKILL to every pid the cluster's state files name that still
runs).
"""

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from pymongo import MongoClient
from pymongo.errors import PyMongoError

UP_TIMEOUT_S = 120.0  # `cluster up`: 4 replica sets elect, routers start
DOWN_TIMEOUT_S = 60.0
LOG_TAIL_LINES = 40


class ShardedCluster:
    """Two single-member shards, one config server, two routers."""

    def __init__(self, binary, workdir):
        self.binary = binary
        self.dir = Path(workdir) / "cluster"
        self.uri = None  # mongodb://router0,router1/

    @property
    def routers(self):
        """host:port of each router, from the cluster's state file."""
        state = json.loads((self.dir / "sharded.json").read_text())
        return [r["Host"] for r in state["Routers"]]

    def start(self):
        cmd = [self.binary, "cluster", "up", "--dir", str(self.dir),
               "--shards", "2", "--shard-members", "1",
               "--config-members", "1", "--routers", "2"]
        try:
            out = subprocess.run(cmd, capture_output=True, text=True,
                                 timeout=UP_TIMEOUT_S)
        except subprocess.TimeoutExpired as exc:
            self.stop()
            raise RuntimeError(f"cluster up took over {UP_TIMEOUT_S}s: {exc}")
        if out.returncode != 0:
            self.stop()
            raise RuntimeError(f"cluster up failed ({out.returncode}):\n"
                               f"{out.stderr}\n{self.log_tails()}")
        self.uri = out.stdout.strip().splitlines()[-1]
        for host in self.routers:
            with MongoClient(f"mongodb://{host}/?directConnection=true",
                             serverSelectionTimeoutMS=10000) as c:
                c.admin.command("ping")

    def stop(self):
        if self.dir.exists():
            try:
                subprocess.run([self.binary, "cluster", "down", "--dir",
                                str(self.dir)], capture_output=True,
                               timeout=DOWN_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                pass
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass  # already gone

    def pids(self):
        """Every nonzero PID in the cluster's state files."""
        out = []
        for path in self.dir.rglob("*.json"):
            try:
                out.extend(_pids(json.loads(path.read_text())))
            except (OSError, ValueError):
                continue
        return sorted(set(out))

    def log_tails(self):
        parts = []
        for log in sorted(self.dir.rglob("relaydb.log")):
            try:
                lines = log.read_text(errors="replace").splitlines()
            except OSError:
                continue
            parts.append(f"--- {log}\n" + "\n".join(lines[-LOG_TAIL_LINES:]))
        return "\n".join(parts) or "(no cluster logs)"

    def wait_routers_alive(self, timeout_s=5.0):
        """True when every router answers ping within timeout_s."""
        deadline = time.monotonic() + timeout_s
        for host in self.routers:
            while True:
                try:
                    with MongoClient(f"mongodb://{host}/?directConnection=true",
                                     serverSelectionTimeoutMS=500) as c:
                        c.admin.command("ping")
                    break
                except PyMongoError:
                    if time.monotonic() > deadline:
                        return False
                    time.sleep(0.1)
        return True


def _pids(value):
    """PID fields anywhere in a decoded state file."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "PID" and isinstance(v, int) and v > 0:
                yield v
            else:
                yield from _pids(v)
    elif isinstance(value, list):
        for v in value:
            yield from _pids(v)

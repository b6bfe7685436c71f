"""A replica set seen by pymongo (issue #14 item 5): a state-change error
(NotWritablePrimary from a secondary reached with directConnection)
carries the member's topologyVersion, so the driver treats it as stale
instead of marking the member Unknown and waiting for its next streaming
hello (heartbeatFrequencyMS, 10 s) before it selects a server again.

The set (one primary, one secondary) is started once for this module with
`relaydb cluster up --data 2` and stopped with `cluster down`.
"""

import json
import subprocess
import time

import pytest
from pymongo import MongoClient
from pymongo.errors import NotPrimaryError

UP_TIMEOUT_S = 60.0


@pytest.fixture(scope="module")
def replset(relaydb_bin, tmp_path_factory):
    d = tmp_path_factory.mktemp("replset") / "rs"
    out = subprocess.run([relaydb_bin, "cluster", "up", "--dir", str(d), "--data", "2"],
                         capture_output=True, text=True, timeout=UP_TIMEOUT_S)
    try:
        assert out.returncode == 0, f"cluster up failed: {out.stderr}"
        hosts = [m["Host"] for m in json.loads((d / "cluster.json").read_text())["Members"]]
        yield hosts
    finally:
        subprocess.run([relaydb_bin, "cluster", "down", "--dir", str(d)],
                       capture_output=True, timeout=UP_TIMEOUT_S)


def _secondary(hosts):
    """host:port of a member that says it is a secondary (bounded wait)."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        for h in hosts:
            with MongoClient(f"mongodb://{h}/?directConnection=true",
                             serverSelectionTimeoutMS=2000) as c:
                if c.admin.command("hello").get("secondary"):
                    return h
        time.sleep(0.2)
    pytest.fail(f"no secondary among {hosts}")


def test_not_primary_error_has_topology_version(replset):
    host = _secondary(replset)
    with MongoClient(f"mongodb://{host}/?directConnection=true",
                     serverSelectionTimeoutMS=2000) as c:
        tv = c.admin.command("hello")["topologyVersion"]
        with pytest.raises(NotPrimaryError) as ei:
            c.test_rs.c.insert_one({"a": 1})
        assert ei.value.details["code"] == 10107
        assert ei.value.details["topologyVersion"] == tv


def test_ping_right_after_not_primary(replset):
    """The issue's repro: ping after a failed insert succeeds at once."""
    host = _secondary(replset)
    with MongoClient(f"mongodb://{host}/?directConnection=true",
                     serverSelectionTimeoutMS=2000, retryWrites=False) as c:
        c.admin.command("ping")
        time.sleep(0.3)  # the monitor is in its streaming hello
        for i in range(4):
            with pytest.raises(NotPrimaryError):
                c.test_rs.c.insert_one({"i": i})
            start = time.monotonic()
            c.admin.command("ping")  # ServerSelectionTimeoutError without the fix
            assert time.monotonic() - start < 1.0

"""Fixtures for the pymongo compatibility suite.

One relaydb process serves the whole session: the binary named by
RELAYDB_BIN, or one built with `go build` into a temp dir. It listens on a
free loopback port with a temp dbpath. Each test gets a fresh database
(`db`) that is dropped afterwards, so tests never see each other's data.

Invariants:
- the server is started once, waited for with a bounded ping loop, and
  killed at session end;
- a test that fails (or leaves the server dead) gets the tail of the
  server's log attached to its report;
- a server crash during a test fails that test, even if its assertions
  passed: a bad request must never take the server down.
"""

import itertools
import re
import shutil
import tempfile
import warnings

import pytest
from pymongo import MongoClient
from pymongo.errors import PyMongoError

from relaydb_proc import Server, relaydb_binary
from sharded_proc import ShardedCluster


_SERVER = None  # the session's Server, for report hooks
_OWN_SERVERS = []  # servers of the running test (fresh_server), for report hooks
_SHARDED = None  # the session's ShardedCluster, for report hooks


@pytest.fixture(scope="session")
def relaydb_bin(tmp_path_factory):
    """Path of the relaydb binary under test."""
    return relaydb_binary(str(tmp_path_factory.mktemp("bin")))


@pytest.fixture(scope="session")
def server(relaydb_bin):
    global _SERVER
    workdir = tempfile.mkdtemp(prefix="relaydb-compat-")
    srv = Server(relaydb_bin, workdir)
    srv.start()
    _SERVER = srv
    yield srv
    srv.stop()
    _SERVER = None
    shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture(scope="session")
def client(server):
    c = MongoClient(server.uri, serverSelectionTimeoutMS=5000,
                    connectTimeoutMS=2000, socketTimeoutMS=30000)
    yield c
    c.close()


_db_counter = itertools.count()


@pytest.fixture
def db(request, client, server):
    """A fresh database for this test, dropped afterwards."""
    base = re.sub(r"[^A-Za-z0-9_]", "_", request.node.name)[:40]
    name = f"t{next(_db_counter)}_{base}"
    database = client[name]
    yield database
    if server.alive():
        try:
            client.drop_database(name)
        except PyMongoError as exc:
            warnings.warn(f"dropDatabase {name} failed: {exc}")


@pytest.fixture
def coll(db):
    """A collection in the test's fresh database."""
    return db["c"]


@pytest.fixture
def fresh_server(relaydb_bin, tmp_path):
    """A relaydb of this test's own (for restarts and kill -9), started."""
    srv = Server(relaydb_bin, tmp_path)
    srv.start()
    _OWN_SERVERS.append(srv)
    yield srv
    srv.stop()
    _OWN_SERVERS.remove(srv)


@pytest.fixture(scope="session")
def sharded_cluster(relaydb_bin, tmp_path_factory):
    """A sharded cluster (2 shards, 1 config server, 2 routers; shards
    added) for the whole session, stopped at its end (test_sharding.py)."""
    global _SHARDED
    sc = ShardedCluster(relaydb_bin, tmp_path_factory.mktemp("sharded"))
    sc.start()
    _SHARDED = sc
    yield sc
    _SHARDED = None
    sc.stop()


@pytest.fixture(autouse=True)
def _server_survives(request):
    """Fails the test if the server died while it ran."""
    yield
    if _SERVER is not None and not _SERVER.alive():
        pytest.fail(f"relaydb exited (status {_SERVER.proc.returncode}) "
                    f"during {request.node.nodeid}", pytrace=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not report.failed:
        return
    for srv in ([_SERVER] if _SERVER is not None else []) + _OWN_SERVERS:
        report.sections.append((f"relaydb log tail ({srv.log_path})", srv.log_tail()))
    if _SHARDED is not None:
        report.sections.append(("sharded cluster log tails", _SHARDED.log_tails()))

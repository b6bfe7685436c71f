"""pymongo against a sharded cluster (two shards, two routers; see
sharded_proc.py): the topology, listShards, range and hashed sharded
collections queried across chunks and shards, and retryable writes, with
MongoDB's results."""

import itertools
import time

import pytest
from bson import Int64
from pymongo import ASCENDING, DESCENDING, MongoClient
from pymongo.errors import PyMongoError

from compat_helpers import assert_op_failure

_names = itertools.count()


@pytest.fixture(scope="module")
def sclient(sharded_cluster):
    """A client over both routers (no directConnection)."""
    c = MongoClient(sharded_cluster.uri, serverSelectionTimeoutMS=10000,
                    connectTimeoutMS=2000, socketTimeoutMS=30000)
    yield c
    c.close()


@pytest.fixture
def sdb(request, sclient, sharded_cluster):
    """A fresh database with sharding enabled, dropped afterwards."""
    name = f"s{next(_names)}_{request.node.name[:30]}".replace("[", "_").replace("]", "_")
    sclient.admin.command("enableSharding", name)
    yield sclient[name]
    if sharded_cluster.wait_routers_alive():
        try:
            sclient.drop_database(name)
        except PyMongoError:
            pass


def chunk_shards(client, ns):
    """The shards holding ns's chunks, per config.chunks (by uuid)."""
    coll = client.config.collections.find_one({"_id": ns})
    assert coll is not None, f"{ns} is not in config.collections"
    return {c["shard"] for c in client.config.chunks.find({"uuid": coll["uuid"]})}


def test_topology_is_sharded_with_both_routers(sclient, sharded_cluster):
    sclient.admin.command("ping")
    want = {tuple(h.rsplit(":", 1)) for h in sharded_cluster.routers}
    want = {(h, int(p)) for h, p in want}
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        desc = sclient.topology_description
        known = {s.address for s in desc.known_servers}
        if desc.topology_type_name == "Sharded" and known == want:
            break
        time.sleep(0.1)
    desc = sclient.topology_description
    assert desc.topology_type_name == "Sharded"
    assert {s.address for s in desc.known_servers} == want
    assert all(s.server_type_name == "Mongos" for s in desc.known_servers)


def test_list_shards(sclient):
    res = sclient.admin.command("listShards")
    assert res["ok"] == 1
    shards = sorted(res["shards"], key=lambda s: s["_id"])
    assert [s["_id"] for s in shards] == ["sh0", "sh1"]
    for s in shards:
        assert s["host"].startswith(s["_id"] + "/127.0.0.1:"), s
        assert s["state"] == 1


def test_range_sharded_crud(sdb, sclient):
    ns = f"{sdb.name}.c"
    res = sclient.admin.command("shardCollection", ns, key={"x": 1})
    assert res["ok"] == 1
    assert res["collectionsharded"] == ns
    sclient.admin.command("split", ns, middle={"x": 50})
    coll = sdb.c
    coll.insert_many([{"_id": i, "x": i, "g": i % 3} for i in range(100)])
    assert len(list(sclient.config.chunks.find(
        {"uuid": sclient.config.collections.find_one({"_id": ns})["uuid"]}))) == 2

    got = [d["x"] for d in coll.find({}, {"_id": 0, "x": 1}).sort("x", DESCENDING).skip(5).limit(10)]
    assert got == list(range(94, 84, -1))
    assert [d["x"] for d in coll.find({"x": {"$gte": 45, "$lt": 55}}).sort("x", ASCENDING)] == list(range(45, 55))
    assert coll.count_documents({}) == 100
    assert coll.count_documents({"x": {"$gte": 40}}) == 60
    assert sorted(coll.distinct("g")) == [0, 1, 2]

    groups = list(coll.aggregate([
        {"$match": {"x": {"$lt": 90}}},
        {"$group": {"_id": "$g", "n": {"$sum": 1}, "total": {"$sum": "$x"}}},
        {"$sort": {"_id": 1}},
    ]))
    assert groups == [
        {"_id": g, "n": len([x for x in range(90) if x % 3 == g]),
         "total": sum(x for x in range(90) if x % 3 == g)} for g in range(3)
    ]

    res = coll.update_one({"x": 70}, {"$set": {"y": "updated"}})
    assert (res.matched_count, res.modified_count) == (1, 1)
    assert coll.find_one({"x": 70})["y"] == "updated"
    res = coll.delete_one({"x": 10})
    assert res.deleted_count == 1
    assert coll.count_documents({}) == 99
    assert coll.find_one({"x": 10}) is None


def test_hashed_sharded_across_shards(sdb, sclient):
    ns = f"{sdb.name}.h"
    sclient.admin.command("shardCollection", ns, key={"k": "hashed"})
    assert chunk_shards(sclient, ns) == {"sh0", "sh1"}, "hashed chunks are presplit over both shards"
    coll = sdb.h
    coll.insert_many([{"k": i, "v": i * 2} for i in range(200)])
    assert coll.count_documents({}) == 200

    # Each shard holds part of the documents (counted on the shards).
    per_shard = {}
    for sh in sclient.admin.command("listShards")["shards"]:
        seed = sh["host"].split("/", 1)[1].split(",")[0]
        with MongoClient(f"mongodb://{seed}/?directConnection=true",
                         serverSelectionTimeoutMS=10000) as direct:
            per_shard[sh["_id"]] = direct[sdb.name].h.count_documents({})
    assert sum(per_shard.values()) == 200 and all(per_shard.values()), per_shard

    got = [d["k"] for d in coll.find({}, {"_id": 0, "k": 1}).sort("k", ASCENDING).skip(20).limit(7)]
    assert got == list(range(20, 27))
    assert coll.find_one({"k": 123})["v"] == 246
    assert sorted(coll.distinct("v", {"k": {"$lt": 5}})) == [0, 2, 4, 6, 8]
    total = list(coll.aggregate([{"$match": {"k": {"$gte": 100}}},
                                 {"$group": {"_id": None, "s": {"$sum": "$v"}}}]))
    assert total == [{"_id": None, "s": sum(2 * k for k in range(100, 200))}]

    assert coll.update_one({"k": 7}, {"$inc": {"v": 1}}).modified_count == 1
    assert coll.find_one({"k": 7})["v"] == 15
    assert coll.delete_one({"k": 8}).deleted_count == 1
    assert coll.count_documents({}) == 199


def test_retryable_write_through_router(sdb, sclient, sharded_cluster):
    ns = f"{sdb.name}.r"
    sclient.admin.command("shardCollection", ns, key={"x": 1})
    # One router, directly: its failCommand closes the connection on the
    # first insert; pymongo retries the write (same lsid and txnNumber)
    # and it is applied once.
    host = sharded_cluster.routers[0]
    with MongoClient(f"mongodb://{host}/?directConnection=true",
                     serverSelectionTimeoutMS=10000) as c:
        c.admin.command("configureFailPoint", "failCommand",
                        mode={"times": 1},
                        data={"failCommands": ["insert"], "closeConnection": True})
        try:
            c[sdb.name].r.insert_one({"_id": 1, "x": 1})
        finally:
            c.admin.command("configureFailPoint", "failCommand", mode="off")
        coll = c[sdb.name].r
        assert coll.count_documents({"_id": 1}) == 1

        # A retry of an applied statement (same txnNumber) is answered
        # from the shard's record, not applied again.
        with c.start_session() as s:
            cmd = {"insert": "r", "documents": [{"_id": 2, "x": 2}], "txnNumber": Int64(77)}
            first = c[sdb.name].command(cmd, session=s)
            again = c[sdb.name].command(cmd, session=s)
        assert first["n"] == 1 and again["n"] == 1
        assert coll.count_documents({}) == 2


def test_shard_collection_errors(sdb, sclient):
    ns = f"{sdb.name}.e"
    sclient.admin.command("shardCollection", ns, key={"x": 1})
    with pytest.raises(PyMongoError) as ei:
        sclient.admin.command("shardCollection", ns, key={"y": 1})
    assert_op_failure(ei, 23, "AlreadyInitialized")
    with pytest.raises(PyMongoError) as ei:
        sclient.admin.command("split", ns, middle={"nokey": 1})
    assert_op_failure(ei, 72, "InvalidOptions")

"""Wire compression (OP_COMPRESSED) with zlib, snappy and zstd: negotiated
in hello, and CRUD through a compressing pymongo client."""

import warnings

import pytest
from bson import SON
from pymongo import MongoClient

import mongowire

COMPRESSORS = ["zlib", "snappy", "zstd"]


@pytest.mark.parametrize("name", COMPRESSORS)
def test_hello_negotiates(server, name):
    with mongowire.connect(server.host, server.port) as s:
        reply = mongowire.roundtrip(
            s, SON([("hello", 1), ("compression", [name]), ("$db", "admin")]))
    assert reply.doc["ok"] == 1
    assert reply.doc.get("compression") == [name], reply.doc


def test_hello_without_compression_field(server):
    with mongowire.connect(server.host, server.port) as s:
        reply = mongowire.roundtrip(s, SON([("hello", 1), ("$db", "admin")]))
    assert "compression" not in reply.doc


def test_hello_unknown_compressor_is_ignored(server):
    with mongowire.connect(server.host, server.port) as s:
        reply = mongowire.roundtrip(
            s, SON([("hello", 1), ("compression", ["lz77", "zlib"]), ("$db", "admin")]))
    assert reply.doc.get("compression") == ["zlib"], reply.doc


@pytest.mark.parametrize("name", COMPRESSORS + ["noop"])
def test_raw_compressed_request(server, name):
    with mongowire.connect(server.host, server.port) as s:
        if name != "noop":
            mongowire.roundtrip(s, SON([("hello", 1), ("compression", [name]),
                                        ("$db", "admin")]))
        msg = mongowire.op_msg(SON([("ping", 1), ("$db", "admin")]), request_id=9)
        s.sendall(mongowire.compress(msg, name))
        reply = mongowire.read_reply(s)
    assert reply.response_to == 9
    assert reply.doc["ok"] == 1


@pytest.mark.parametrize("name", COMPRESSORS)
def test_crud_through_compressing_client(server, db, name):
    with warnings.catch_warnings():
        # pymongo only warns (and sends uncompressed) if a library is missing.
        warnings.simplefilter("error")
        c = MongoClient(server.uri, compressors=name)
    with c:
        assert c.options.pool_options._compression_settings.compressors == [name]
        coll = c[db.name][f"comp_{name}"]
        docs = [{"_id": i, "text": "relaydb " * 200, "n": i} for i in range(200)]
        assert len(coll.insert_many(docs).inserted_ids) == 200
        assert coll.update_many({"n": {"$lt": 100}}, {"$inc": {"n": 1000}}).modified_count == 100
        got = list(coll.find({}, {"text": 1, "n": 1}).sort("_id", 1).batch_size(50))
        assert len(got) == 200
        assert got[0]["text"] == "relaydb " * 200
        assert got[0]["n"] == 1000 and got[150]["n"] == 150
        assert coll.delete_many({"n": {"$gte": 1000}}).deleted_count == 100
        assert coll.count_documents({}) == 100

"""Durability across restarts: a clean stop, and kill -9 after j:true
writes. Each test runs its own relaydb on its own dbpath."""

import pytest
from pymongo import MongoClient, WriteConcern
from pymongo.errors import DuplicateKeyError


def connect(srv):
    return MongoClient(srv.uri, serverSelectionTimeoutMS=5000)


def test_clean_restart_keeps_data_and_indexes(fresh_server):
    with connect(fresh_server) as c:
        coll = c.app.users
        coll.insert_many([{"_id": i, "email": f"u{i}@x", "n": i} for i in range(100)])
        coll.create_index("email", unique=True)
        coll.update_one({"_id": 5}, {"$set": {"n": 500}})
        coll.delete_one({"_id": 6})
        c.app.gone.insert_one({})
        c.app.drop_collection("gone")
    fresh_server.stop()
    fresh_server.start()
    with connect(fresh_server) as c:
        coll = c.app.users
        assert coll.count_documents({}) == 99
        assert coll.find_one({"_id": 5})["n"] == 500
        assert coll.find_one({"_id": 6}) is None
        assert "email_1" in coll.index_information()
        assert coll.index_information()["email_1"].get("unique") is True
        with pytest.raises(DuplicateKeyError):
            coll.insert_one({"email": "u1@x"})
        assert "gone" not in c.app.list_collection_names()
        assert "app" in c.list_database_names()


def test_kill9_keeps_journaled_writes(fresh_server):
    with connect(fresh_server) as c:
        coll = c.app.get_collection("j", write_concern=WriteConcern(w=1, j=True))
        coll.create_index("k")
        for i in range(200):
            coll.insert_one({"_id": i, "k": i % 7})
        coll.update_many({"k": 3}, {"$set": {"k": 70}})
    fresh_server.kill9()
    fresh_server.start()
    with connect(fresh_server) as c:
        coll = c.app.j
        assert coll.count_documents({}) == 200
        assert sorted(d["_id"] for d in coll.find()) == list(range(200))
        # The index agrees with the documents.
        by_index = coll.count_documents({"k": 70}, hint="k_1")
        by_scan = coll.count_documents({"$expr": {"$eq": ["$k", 70]}})  # no index use
        assert by_index == by_scan == len([i for i in range(200) if i % 7 == 3])
        assert coll.count_documents({"k": 3}, hint="k_1") == 0

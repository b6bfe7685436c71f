"""Databases and collections: create, list, rename, drop; server info."""

import pytest
from pymongo.errors import OperationFailure

from compat_helpers import assert_op_failure


def test_create_list_drop_collection(db):
    db.create_collection("a")
    db["b"].insert_one({})
    assert sorted(db.list_collection_names()) == ["a", "b"]
    assert db.list_collection_names(filter={"name": "b"}) == ["b"]
    infos = {c["name"]: c for c in db.list_collections()}
    assert infos["a"]["type"] == "collection"
    assert "uuid" in infos["a"]["info"]
    db.drop_collection("a")
    assert db.list_collection_names() == ["b"]


def test_create_existing_collection(db):
    db.command("create", "x")
    with pytest.raises(OperationFailure) as ei:
        db.command("create", "x")
    assert_op_failure(ei, 48, "NamespaceExists")


def test_create_invalid_collection_name(db):
    with pytest.raises(OperationFailure) as ei:
        db.command("create", "bad$name")
    assert_op_failure(ei, 73, "InvalidNamespace")


def test_rename_collection(db, client):
    db["src"].insert_many([{"_id": 1}, {"_id": 2}])
    db["src"].create_index("x")
    db["src"].rename("dst")
    assert db.list_collection_names() == ["dst"]
    assert db["dst"].count_documents({}) == 2
    assert "x_1" in db["dst"].index_information()
    db["other"].insert_one({})
    with pytest.raises(OperationFailure) as ei:
        db["dst"].rename("other")
    assert_op_failure(ei, 48, "NamespaceExists")
    db["dst"].rename("other", dropTarget=True)
    assert db.list_collection_names() == ["other"]
    assert db["other"].count_documents({}) == 2


def test_list_and_drop_database(client, db):
    db["c"].insert_one({"a": 1})
    names = client.list_database_names()
    assert db.name in names
    entry = next(d for d in client.list_databases() if d["name"] == db.name)
    assert entry["empty"] is False
    client.drop_database(db.name)
    assert db.name not in client.list_database_names()
    assert db["c"].find_one() is None


def test_list_databases_includes_admin_and_local(client):
    names = client.list_database_names()
    assert "admin" in names and "local" in names


def test_server_info_commands(client):
    info = client.server_info()  # buildInfo
    assert isinstance(info["version"], str)
    assert info["versionArray"][:2] == [int(x) for x in info["version"].split(".")[:2]]
    status = client.admin.command("serverStatus")
    assert status["ok"] == 1 and status["uptime"] >= 0
    assert client.admin.command("connectionStatus")["ok"] == 1
    hello = client.admin.command("hello")
    assert hello["isWritablePrimary"] is True
    assert hello["maxWriteBatchSize"] == 100000
    assert "localTime" in hello and "connectionId" in hello


def test_commands_are_case_sensitive_except_legacy_aliases(client):
    assert client.admin.command("isMaster")["ismaster"] is True
    assert client.admin.command("ismaster")["ismaster"] is True
    with pytest.raises(OperationFailure) as ei:
        client.admin.command("PING")
    assert_op_failure(ei, 59, "CommandNotFound")

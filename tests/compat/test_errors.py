"""Client-visible errors: MongoDB's codes and codeNames, and the server
keeps answering after each one."""

import pytest
from bson import SON
from pymongo.errors import OperationFailure, WriteError

import mongowire
from compat_helpers import assert_op_failure, assert_ping

MAX_BSON = 16 * 1024 * 1024


def test_unknown_command(client, db):
    with pytest.raises(OperationFailure) as ei:
        db.command("noSuchCommandEver")
    assert ei.value.code == 59
    assert ei.value.details["codeName"] == "CommandNotFound"
    assert ei.value.details["ok"] == 0
    assert "errmsg" in ei.value.details
    assert_ping(client)


def test_unknown_query_operator(client, coll):
    coll.insert_one({"a": 1})
    with pytest.raises(OperationFailure) as ei:
        coll.find_one({"a": {"$foo": 1}})
    assert ei.value.code == 2
    assert ei.value.details["codeName"] == "BadValue"
    assert_ping(client)


def test_unknown_update_operator(client, coll):
    coll.insert_one({"_id": 1})
    with pytest.raises(WriteError) as ei:
        coll.update_one({"_id": 1}, {"$frobnicate": {"a": 1}})
    assert ei.value.code == 9  # FailedToParse
    assert_ping(client)


@pytest.mark.parametrize("doc,update", [
    ({"_id": 1, "a": 1}, {"$inc": {"a": "x"}}),          # non-numeric argument
    ({"_id": 1, "a": "text"}, {"$inc": {"a": 1}}),       # non-numeric target
])
def test_inc_non_numeric(client, coll, doc, update):
    coll.insert_one(doc)
    with pytest.raises(WriteError) as ei:
        coll.update_one({"_id": 1}, update)
    assert ei.value.code == 14  # TypeMismatch
    assert coll.find_one({"_id": 1}) == doc
    assert_ping(client)


def test_modify_id_is_immutable(client, coll):
    coll.insert_one({"_id": 1, "a": 1})
    with pytest.raises(WriteError) as ei:
        coll.update_one({"_id": 1}, {"$set": {"_id": 2}})
    assert ei.value.code == 66  # ImmutableField
    with pytest.raises(WriteError) as ei:
        coll.replace_one({"_id": 1}, {"_id": 3, "a": 2})
    assert ei.value.code == 66
    assert coll.find_one() == {"_id": 1, "a": 1}
    assert_ping(client)


def test_conflicting_update_operators(client, coll):
    coll.insert_one({"_id": 1, "a": 1})
    with pytest.raises(WriteError) as ei:
        coll.update_one({"_id": 1}, {"$set": {"a": 2}, "$inc": {"a": 1}})
    assert ei.value.code == 40  # ConflictingUpdateOperators
    assert_ping(client)


@pytest.mark.parametrize("collection", ["bad$name", "", "system.foo"])
def test_write_to_invalid_namespace(client, db, collection):
    # pymongo refuses these names itself, so send the command directly.
    with pytest.raises(OperationFailure) as ei:
        db.command(SON([("insert", collection), ("documents", [{"a": 1}])]))
    assert_op_failure(ei, 73, "InvalidNamespace")
    assert_ping(client)


def test_invalid_database_name(client, server):
    # pymongo refuses "bad.db" itself, so send raw OP_MSG.
    with mongowire.connect(server.host, server.port) as s:
        reply = mongowire.roundtrip(
            s, SON([("insert", "c"), ("documents", [{"a": 1}]), ("$db", "bad.db")]))
    assert reply.doc["ok"] == 0, reply.doc
    assert reply.doc["code"] == 73, reply.doc
    assert reply.doc["codeName"] == "InvalidNamespace"
    assert_ping(client)


def test_oversized_document_insert(client, server, db):
    """A >16MB document sent as a document sequence (pymongo would refuse
    to send it) is rejected with an error, not a crash."""
    big = {"_id": 1, "blob": "x" * (MAX_BSON + 1024)}
    with mongowire.connect(server.host, server.port, timeout=30) as s:
        reply = mongowire.roundtrip(
            s, SON([("insert", "c"), ("$db", db.name)]), sequences={"documents": [big]})
    doc = reply.doc
    failed = doc.get("ok") == 0 or doc.get("writeErrors")
    assert failed, doc
    assert db["c"].count_documents({}) == 0
    assert_ping(client)


def test_update_growing_document_past_16mb(client, coll):
    chunk = "y" * (9 * 1024 * 1024)
    coll.insert_one({"_id": 1, "a": chunk})
    with pytest.raises(OperationFailure):
        coll.update_one({"_id": 1}, {"$set": {"b": chunk}})
    assert coll.find_one({"_id": 1}, {"b": 1}) == {"_id": 1}
    assert_ping(client)


def test_bad_filter_type(client, db):
    db["c"].insert_one({})
    with pytest.raises(OperationFailure) as ei:
        db.command("find", "c", filter="not-a-document")
    assert ei.value.code == 14  # TypeMismatch
    assert ei.value.details["codeName"] == "TypeMismatch"
    assert_ping(client)


def test_unknown_aggregation_stage(client, coll):
    coll.insert_one({})
    with pytest.raises(OperationFailure) as ei:
        list(coll.aggregate([{"$nope": {}}]))
    assert ei.value.code == 40324  # Unrecognized pipeline stage name
    assert_ping(client)


def test_drop_missing_collection_is_ok(client, db):
    db.drop_collection("never_existed")  # pymongo tolerates NamespaceNotFound
    with pytest.raises(OperationFailure) as ei:
        db["never_existed"].rename("other")
    assert_op_failure(ei, 26, "NamespaceNotFound")
    assert_ping(client)

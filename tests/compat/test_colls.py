"""Collections with rules (issue #14): validators and $jsonSchema, views,
capped collections with tailable cursors."""

import threading
import time

import pytest
from pymongo import CursorType
from pymongo.errors import OperationFailure, WriteError

from compat_helpers import assert_op_failure


SCHEMA = {"$jsonSchema": {
    "bsonType": "object",
    "required": ["name"],
    "properties": {"name": {"bsonType": "string"}, "qty": {"bsonType": "int", "minimum": 0}},
}}


def test_validator_refuses_and_explains(db):
    coll = db.create_collection("items", validator=SCHEMA)
    coll.insert_one({"_id": 1, "name": "a", "qty": 3})
    with pytest.raises(WriteError) as exc:
        coll.insert_one({"_id": 2, "qty": -1})
    assert exc.value.code == 121
    info = exc.value.details["errInfo"]
    assert info["failingDocumentId"] == 2
    rules = info["details"]["schemaRulesNotSatisfied"]
    assert {r["operatorName"] for r in rules} == {"required", "properties"}
    coll.insert_one({"_id": 3}, bypass_document_validation=True)
    assert coll.count_documents(SCHEMA) == 1
    opts = db["items"].options()
    assert opts["validator"] == SCHEMA


def test_validation_action_warn_via_collmod(db):
    db.create_collection("w", validator={"a": {"$type": "int"}})
    db.command("collMod", "w", validationAction="warn")
    db["w"].insert_one({"a": "not an int"})
    assert db["w"].count_documents({}) == 1
    with pytest.raises(OperationFailure) as exc:
        db.command("collMod", "w", validationLevel="sometimes")
    assert_op_failure(exc, 2, "BadValue")


def test_view_reads_and_refuses_writes(db):
    db["src"].insert_many([{"_id": i, "v": i, "hidden": True} for i in range(5)])
    db.create_collection("odd", viewOn="src",
                         pipeline=[{"$match": {"v": {"$mod": [2, 1]}}}, {"$unset": "hidden"}])
    view = db["odd"]
    assert [d["_id"] for d in view.find(sort=[("v", -1)])] == [3, 1]
    assert all("hidden" not in d for d in view.find())
    assert view.count_documents({}) == 2
    assert view.distinct("v") == [1, 3] or sorted(view.distinct("v")) == [1, 3]
    assert list(view.aggregate([{"$group": {"_id": None, "s": {"$sum": "$v"}}}]))[0]["s"] == 4
    info = next(db.list_collections(filter={"name": "odd"}))
    assert info["type"] == "view" and info["options"]["viewOn"] == "src"
    with pytest.raises(OperationFailure) as exc:
        view.insert_one({"v": 7})
    assert_op_failure(exc, 166)


def test_capped_with_tailable_cursor(db):
    capped = db.create_collection("log", capped=True, size=4096, max=3)
    capped.insert_many([{"_id": i} for i in range(5)])
    assert [d["_id"] for d in capped.find()] == [2, 3, 4]
    assert db.command("collStats", "log")["capped"] is True
    cur = capped.find(cursor_type=CursorType.TAILABLE_AWAIT).max_await_time_ms(200)
    assert [next(cur)["_id"] for _ in range(3)] == [2, 3, 4]

    def later():
        time.sleep(0.1)
        capped.insert_one({"_id": 100})
    t = threading.Thread(target=later)
    t.start()
    got = None
    deadline = time.time() + 5
    while got is None and cur.alive and time.time() < deadline:
        try:
            got = next(cur)
        except StopIteration:  # an empty awaitData batch: the cursor stays open
            pass
    t.join()
    assert got == {"_id": 100}
    cur.close()


def test_clustered_and_timeseries(db):
    from datetime import datetime, timezone
    db.create_collection("cl", clusteredIndex={"key": {"_id": 1}, "unique": True, "name": "by id"})
    idx = list(db["cl"].list_indexes())
    assert len(idx) == 1 and idx[0]["clustered"] is True and idx[0]["name"] == "by id"
    ts = db.create_collection("ts", timeseries={"timeField": "t", "metaField": "m"})
    now = datetime.now(timezone.utc).replace(microsecond=0)
    ts.insert_many([{"_id": 1, "t": now, "m": "a"}, {"_id": 1, "t": now, "m": "b"}])
    assert ts.count_documents({"m": "a"}) == 1
    info = next(db.list_collections(filter={"name": "ts"}))
    assert info["type"] == "timeseries" and info["options"]["timeseries"]["timeField"] == "t"
    with pytest.raises(WriteError) as exc:
        ts.insert_one({"t": "yesterday"})
    assert exc.value.code == 2

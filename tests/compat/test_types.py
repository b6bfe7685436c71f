"""BSON types: every type round-trips unchanged, compares in MongoDB's
cross-type order, and answers $type queries."""

import datetime
import uuid

import pytest
from bson import (Binary, Code, DBRef, Decimal128, Int64, MaxKey, MinKey, ObjectId, Regex,
                  Timestamp)
from bson.codec_options import CodecOptions

UTC = datetime.timezone.utc

VALUES = {
    "double": 1.5,
    "string": "héllo",
    "object": {"x": {"y": [1, {"z": None}]}},
    "array": [1, "a", [2.5], {"k": "v"}],
    "binData": Binary(b"\x00\x01\xff", 0x80),  # subtype 0 decodes as bytes
    "uuid": Binary(uuid.UUID("12345678-1234-5678-1234-567812345678").bytes, 4),
    "objectId": ObjectId("65a1b2c3d4e5f60718293a4b"),
    "bool": True,
    "date": datetime.datetime(2024, 2, 29, 12, 30, 15, 123000, tzinfo=UTC),
    "null": None,
    "regex": Regex("^ab+c$", "i"),
    "javascript": Code("function() { return 1; }"),
    "int": 42,
    "timestamp": Timestamp(1700000000, 7),
    "long": Int64(1 << 40),
    "decimal": Decimal128("1234.5678901234567890123456789"),
    "minKey": MinKey(),
    "maxKey": MaxKey(),
    "dbref": DBRef("other", 5),
}


def test_round_trip_every_type(db):
    coll = db.get_collection("t", codec_options=CodecOptions(tz_aware=True, tzinfo=UTC))
    coll.insert_one({"_id": 1, **VALUES})
    got = coll.find_one({"_id": 1})
    for key, want in VALUES.items():
        assert got[key] == want, key
        assert type(got[key]) is type(want), key
    assert list(got.keys()) == ["_id"] + list(VALUES)


@pytest.mark.parametrize("alias,key", [
    ("double", "double"), ("string", "string"), ("object", "object"), ("array", "array"),
    ("binData", "binData"), ("objectId", "objectId"), ("bool", "bool"), ("date", "date"),
    ("null", "null"), ("regex", "regex"), ("javascript", "javascript"), ("int", "int"),
    ("timestamp", "timestamp"), ("long", "long"), ("decimal", "decimal"),
    ("minKey", "minKey"), ("maxKey", "maxKey"),
])
def test_type_operator(coll, alias, key):
    coll.insert_many([{"_id": k, "v": v} for k, v in VALUES.items() if k != "array"])
    coll.insert_one({"_id": "array", "v": VALUES["array"]})
    got = sorted(d["_id"] for d in coll.find({"v": {"$type": alias}}))
    want = {key}
    if alias == "binData":
        want.add("uuid")
    if alias == "object":
        want.add("dbref")  # a DBRef is an object
    if alias == "array":
        want = {"array"}
    # An array field matches $type of its elements too.
    # (Only top-level elements: [2.5] inside the array does not make it "double".)
    elem_types = {"string": "array", "int": "array", "object": "array"}
    if alias in elem_types:
        want.add("array")
    assert got == sorted(want)


def test_number_alias_and_numeric_equality(coll):
    coll.insert_many([{"_id": 1, "v": 1}, {"_id": 2, "v": Int64(1)}, {"_id": 3, "v": 1.0},
                      {"_id": 4, "v": Decimal128("1")}, {"_id": 5, "v": "1"}])
    assert sorted(d["_id"] for d in coll.find({"v": 1})) == [1, 2, 3, 4]
    assert sorted(d["_id"] for d in coll.find({"v": {"$type": "number"}})) == [1, 2, 3, 4]


def test_cross_type_sort_order(coll):
    # Arrays sort by their smallest (ascending) or largest (descending)
    # element, so they have no bracket of their own here.
    order = ["minKey", "null", "int", "string", "object", "binData", "objectId",
             "bool", "date", "timestamp", "regex", "maxKey"]
    vals = {
        "minKey": MinKey(), "null": None, "int": 5, "string": "s", "object": {"a": 1},
        "binData": Binary(b"x"), "objectId": ObjectId(), "bool": False,
        "date": datetime.datetime(2020, 1, 1), "timestamp": Timestamp(1, 1),
        "regex": Regex("a"), "maxKey": MaxKey(),
    }
    coll.insert_many([{"_id": k, "v": vals[k]} for k in reversed(order)])
    assert [d["_id"] for d in coll.find().sort("v", 1)] == order
    assert [d["_id"] for d in coll.find().sort("v", -1)] == list(reversed(order))


def test_numbers_sort_across_types(coll):
    coll.insert_many([{"_id": 1, "v": 2.5}, {"_id": 2, "v": Int64(-3)}, {"_id": 3, "v": 1},
                      {"_id": 4, "v": Decimal128("2.25")}, {"_id": 5, "v": float("nan")},
                      {"_id": 6, "v": float("-inf")}])
    # NaN sorts below every other number.
    assert [d["_id"] for d in coll.find().sort("v", 1)] == [5, 6, 2, 3, 4, 1]


def test_array_sort_keys(coll):
    coll.insert_many([{"_id": "empty", "v": []}, {"_id": "null", "v": None},
                      {"_id": "mixed", "v": [7, 1]}, {"_id": "four", "v": 4},
                      {"_id": "missing"}])
    # Ascending uses the smallest element; an empty array is below null.
    asc = [d["_id"] for d in coll.find().sort([("v", 1), ("_id", 1)])]
    assert asc == ["empty", "missing", "null", "mixed", "four"]
    # Descending uses the largest element.
    desc = [d["_id"] for d in coll.find().sort([("v", -1), ("_id", 1)])]
    assert desc == ["mixed", "four", "missing", "null", "empty"]

"""bulk_write: mixed operations, ordered and unordered, counts and errors."""

import pytest
from pymongo import DeleteMany, DeleteOne, InsertOne, ReplaceOne, UpdateMany, UpdateOne
from pymongo.errors import BulkWriteError


def test_mixed_ordered_counts(coll):
    res = coll.bulk_write([
        InsertOne({"_id": 1, "a": 1}),
        InsertOne({"_id": 2, "a": 1}),
        InsertOne({"_id": 3, "a": 2}),
        UpdateOne({"_id": 1}, {"$set": {"b": 1}}),
        UpdateMany({"a": 1}, {"$inc": {"n": 1}}),
        UpdateOne({"_id": 9}, {"$set": {"a": 9}}, upsert=True),
        ReplaceOne({"_id": 3}, {"a": 3}),
        ReplaceOne({"_id": 10}, {"a": 10}, upsert=True),
        DeleteOne({"_id": 2}),
        DeleteMany({"a": {"$gte": 9}}),
    ], ordered=True)
    assert res.acknowledged
    assert res.inserted_count == 3
    assert res.matched_count == 4   # 1 + 2 + 1
    assert res.modified_count == 4
    assert res.upserted_count == 2
    assert res.upserted_ids == {5: 9, 7: 10}
    assert res.deleted_count == 3   # _id 2, 9, 10
    assert list(coll.find().sort("_id", 1)) == [
        {"_id": 1, "a": 1, "b": 1, "n": 1}, {"_id": 3, "a": 3}]


def test_ordered_stops_at_first_error(coll):
    coll.insert_one({"_id": 1})
    with pytest.raises(BulkWriteError) as ei:
        coll.bulk_write([
            InsertOne({"_id": 2}),
            InsertOne({"_id": 1}),              # duplicate: stops here
            UpdateOne({"_id": 2}, {"$set": {"x": 1}}),
            DeleteOne({"_id": 1}),
        ], ordered=True)
    d = ei.value.details
    assert d["nInserted"] == 1
    assert d["nModified"] == 0 and d["nRemoved"] == 0
    assert [(e["index"], e["code"]) for e in d["writeErrors"]] == [(1, 11000)]
    assert list(coll.find().sort("_id", 1)) == [{"_id": 1}, {"_id": 2}]


def test_unordered_runs_everything(coll):
    coll.insert_one({"_id": 1, "v": "s"})
    with pytest.raises(BulkWriteError) as ei:
        coll.bulk_write([
            InsertOne({"_id": 1}),                         # 0: duplicate
            UpdateOne({"_id": 1}, {"$inc": {"v": 1}}),     # 1: TypeMismatch
            InsertOne({"_id": 2}),                         # 2
            UpdateOne({"_id": 2}, {"$set": {"x": 1}}),     # 3
            DeleteOne({"_id": 3}),                         # 4: no match, no error
        ], ordered=False)
    d = ei.value.details
    errs = sorted((e["index"], e["code"]) for e in d["writeErrors"])
    assert errs == [(0, 11000), (1, 14)]
    assert d["nInserted"] == 1
    assert d["nMatched"] == 1 and d["nModified"] == 1
    assert d["nRemoved"] == 0
    assert coll.find_one({"_id": 2}) == {"_id": 2, "x": 1}


def test_error_index_maps_to_whole_bulk(coll):
    # pymongo splits this into insert/update/insert commands; the error's
    # index must still be the position in the original list.
    with pytest.raises(BulkWriteError) as ei:
        coll.bulk_write([
            InsertOne({"_id": 1}),
            UpdateOne({"_id": 1}, {"$set": {"a": 1}}),
            InsertOne({"_id": 5}),
            InsertOne({"_id": 1}),
        ], ordered=True)
    d = ei.value.details
    assert [e["index"] for e in d["writeErrors"]] == [3]
    assert d["nInserted"] == 2 and d["nModified"] == 1


def test_large_bulk_insert(coll):
    res = coll.bulk_write([InsertOne({"i": i, "pad": "p" * 100}) for i in range(5000)],
                          ordered=False)
    assert res.inserted_count == 5000
    assert coll.count_documents({}) == 5000


def test_bulk_upsert_many_with_update_many(coll):
    res = coll.bulk_write([UpdateMany({"k": "z"}, {"$set": {"v": 1}}, upsert=True)])
    assert res.upserted_count == 1 and res.matched_count == 0
    assert coll.find_one({}, {"_id": 0}) == {"k": "z", "v": 1}
